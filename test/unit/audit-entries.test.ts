import { describe, expect, it } from 'vitest';
import { changesOf } from '../../shared/store/audit-entries.ts';

const owner = { merchant_id: 'mer_1', livemode: false };
const webhook = { entity: 'webhook', id: 'whk_1', owner } as const;

describe("an audit entry's changes", () => {
  it('shows what a write set, and what it was where the change names it (a single from-state, a value it required)', () => {
    const changes = changesOf(
      [
        {
          target: webhook,
          transition: { from: ['active'], to: 'disabled' },
          set: { url: 'https://new.example', updated_at: '2026-01-01T00:00:00.000Z' },
          expect: { url: 'https://old.example' },
          unset: ['disabled_reason'],
        },
      ],
      'whk_1',
    );
    expect(changes).toEqual({
      status: { from: 'active', to: 'disabled' },
      url: { from: 'https://old.example', to: 'https://new.example' },
      disabled_reason: { to: null },
    });
  });

  it('names no from-state when the transition allows several', () => {
    expect(changesOf([{ target: webhook, transition: { from: ['active', 'revoked'], to: 'revoked' } }], 'whk_1')).toEqual({
      status: { to: 'revoked' },
    });
  });

  it('shows only the writes to the object the entry names (not its counters or copies of other objects)', () => {
    const changes = changesOf(
      [
        { target: webhook, item: { url: 'https://a.example', status: 'active' } },
        { target: { entity: 'merchant', id: 'mer_1' }, set: { webhook_count: 3 } },
      ],
      'whk_1',
    );
    expect(changes).toEqual({ url: { to: 'https://a.example' }, status: { to: 'active' } });
  });

  it('never shows a secret, a credential, a hash, card data or a key-shaped value, at any depth', () => {
    const changes = changesOf(
      [
        {
          target: { entity: 'connector', id: 'con_1', owner },
          item: {
            credentials_sealed: 'AYADeJx…',
            credentials_hint: 'sk_…abcd',
            key_hash: 'e3b0c44298fc1c149afbf4c8996fb924',
            card: { last4: '4242', fingerprint: 'fp_1' },
            label: 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
            nested: { deep: ['whsec_abc', { token: 'x' }, 'plain'] },
          },
          set: { secret_sealed: 'new' },
          expect: { secret_sealed: 'old' },
        },
      ],
      'con_1',
    );
    expect(changes).toEqual({
      credentials: { to: '[changed]' },
      credentials_hint: { to: '[changed]' },
      key_hash: { to: '[changed]' },
      card: { to: '[changed]' },
      label: { to: '[changed]' },
      nested: { to: { deep: ['[changed]', { token: '[changed]' }, 'plain'] } },
      secret: { from: '[changed]', to: '[changed]' },
    });
  });
});
