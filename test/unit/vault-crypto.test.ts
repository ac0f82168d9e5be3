import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { open, seal } from '../../shared/vault-crypto.ts';

/* The vault's envelope encryption (shared/vault-crypto.ts) with a local key file: a value opens only under exactly
   the encryption context it was sealed with. */

beforeAll(() => {
  const file = join(mkdtempSync(join(tmpdir(), 'vault-key-')), 'vault.key');
  writeFileSync(file, randomBytes(32).toString('base64'));
  Object.assign(config, { VAULT_KEY_FILE: file, VAULT_KMS_KEY_ARN: undefined });
});

const CONTEXT = { merchant_id: 'mer_01jd0000000000000000000001', payment_method_id: 'pm_01jd0000000000000000000001' };

describe('open', () => {
  it('opens a value under exactly the context it was sealed with', async () => {
    // Prepare
    const sealed = await seal('4242424242424242', CONTEXT);
    // Act + Assess
    await expect(open(sealed, { ...CONTEXT })).resolves.toBe('4242424242424242');
  });

  it('refuses a value sealed with an extra context key, a missing one or another value', async () => {
    // Prepare
    const withExtra = await seal('4242424242424242', { ...CONTEXT, purpose: 'other' });
    const withLess = await seal('4242424242424242', { merchant_id: CONTEXT.merchant_id });
    const otherPm = await seal('4242424242424242', { ...CONTEXT, payment_method_id: 'pm_01jd0000000000000000000002' });
    // Act + Assess
    for (const sealed of [withExtra, withLess, otherPm]) {
      await expect(open(sealed, CONTEXT)).rejects.toThrow('Vault value sealed under another encryption context');
    }
  });
});
