import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PaymentMethodRecord } from '../../shared/store/payment-methods.ts';

/**
 * A card update applied on top of one that came first is tried again a bounded number of times: a refusal that never
 * ends (another writer always first) answers 409 instead of retrying without end.
 */
const writes = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../shared/store/commit.ts', () => ({
  // every write loses to "another update"; past 50 the retries are unbounded (what the test guards against)
  commit: async () => {
    if (++writes.count > 50) throw new Error('the card update retried more than 50 times');
    return 'refused';
  },
}));
vi.mock('../../shared/store/payment-methods.ts', () => ({ getPaymentMethod: async () => saved }));

const saved: PaymentMethodRecord = {
  id: 'pm_unit',
  merchant_id: 'mer_unit',
  livemode: false,
  customer_id: null,
  card: { brand: 'visa', last4: '4242', bin: '424242', exp_month: 1, exp_year: 2030, fingerprint: 'fp' },
  billing_details: null,
  tokens: {},
  created_at: '2026-01-01T00:00:00.000Z',
};

beforeEach(() => {
  writes.count = 0;
});

describe('a card update refused again and again', () => {
  it('answers 409 operation_in_progress after a few tries', async () => {
    // Prepare
    const { updateSavedCard } = await import('../../shared/domain/card-updates.ts');
    // Act
    const outcome = await updateSavedCard(saved, { exp_month: 2, exp_year: 2031 }).then(
      () => 'updated',
      (error: { status?: number; code?: string; message: string }) => error,
    );
    // Assess
    expect(outcome).toMatchObject({ status: 409, code: 'operation_in_progress' });
    expect(writes.count).toBe(5);
  });
});
