import { describe, expect, it } from 'vitest';
import { type LedgerObject, matchPayout } from '../../shared/domain/reconciliation-matching.ts';
import type { PayoutLine, ProviderPayout } from '../../shared/providers/types.ts';

const STRIPE = { percent: 2.9, fixed: 30 };
const line = (fields: Partial<PayoutLine> & Pick<PayoutLine, 'type' | 'source' | 'amount' | 'fee'>): PayoutLine => ({
  net: fields.amount - fields.fee,
  currency: 'USD',
  created: '2026-11-23T10:00:00.000Z',
  ...fields,
});
const payout = (lines: PayoutLine[], amount = lines.reduce((n, l) => n + l.net, 0)): ProviderPayout => ({
  reference: 'po_1',
  currency: 'USD',
  amount,
  created: '2026-11-23T12:00:00.000Z',
  arrivalDate: '2026-11-25',
  status: 'paid',
  lines,
});
const paymentA: LedgerObject = {
  payment_id: 'pay_a',
  moved_at: '2026-11-23T09:00:00.000Z',
  refund_id: null,
  dispute_id: null,
  amount: 10_000,
  currency: 'USD',
};
const refundA: LedgerObject = { ...paymentA, refund_id: 'ref_a', amount: 1_000 };

describe('matchPayout', () => {
  it('matches a charge and its refund, books what the ledger had, and finds nothing wrong', () => {
    const lines = [
      line({ type: 'charge', source: 'ch_a', amount: 10_000, fee: 320 }),
      line({ type: 'refund', source: 're_a', amount: -1_000, fee: 0 }),
    ];
    const expected = [
      { payment_id: 'pay_a', refund_id: null, amount: 10_000, currency: 'USD' },
      { payment_id: 'pay_a', refund_id: 'ref_a', amount: -1_000, currency: 'USD' },
    ];
    const { lines: matched, findings } = matchPayout(payout(lines), [paymentA, refundA], expected, STRIPE);
    expect(findings).toEqual([]);
    expect(matched.map((l) => [l.payment_id, l.refund_id, l.booked, l.day])).toEqual([
      ['pay_a', null, 10_000, '2026-11-23'],
      ['pay_a', 'ref_a', -1_000, '2026-11-23'],
    ]);
  });

  it.each([
    [
      'a line of another currency',
      line({ type: 'charge', source: 'ch_a', amount: 10_000, fee: 320, currency: 'EUR' }),
      paymentA,
      'currency_mismatch',
      'USD',
      'EUR',
    ],
    ['a line nobody made here', line({ type: 'charge', source: 'ch_x', amount: 500, fee: 45 }), undefined, 'missing_in_ledger', null, 500],
    ['a refund line of another amount', line({ type: 'refund', source: 're_a', amount: -900, fee: 0 }), refundA, 'amount_mismatch', -1_000, -900],
    ['a charge with another fee', line({ type: 'charge', source: 'ch_a', amount: 10_000, fee: 300 }), paymentA, 'fee_mismatch', 320, 300],
  ] as const)('names %s with its expected and actual values', (_case, only, found, kind, expected, actual) => {
    const { findings } = matchPayout(payout([only]), [found], [], STRIPE);
    expect(findings).toEqual([expect.objectContaining({ kind, expected, actual, source: only.source })]);
  });

  it('names a capture and a refund without a line, and a total that is not the sum of the net', () => {
    const expected = [
      { payment_id: 'pay_b', refund_id: null, amount: 700, currency: 'USD' },
      { payment_id: 'pay_c', refund_id: 'ref_c', amount: -300, currency: 'USD' },
    ];
    const { findings } = matchPayout(payout([], 5), [], expected, STRIPE);
    expect(findings).toEqual([
      expect.objectContaining({ kind: 'missing_in_provider', payment_id: 'pay_b', refund_id: null, expected: 700, actual: null }),
      expect.objectContaining({ kind: 'missing_in_provider', payment_id: 'pay_c', refund_id: 'ref_c', expected: -300, actual: null }),
      expect.objectContaining({ kind: 'payout_total_mismatch', source: 'po_1', expected: 0, actual: 5 }),
    ]);
  });

  it('leaves the provider’s own fee lines unmatched, without an exception', () => {
    const { lines, findings } = matchPayout(payout([line({ type: 'fee', source: 'txn_fee', amount: -200, fee: 0 })]), [undefined], [], STRIPE);
    expect(findings).toEqual([]);
    expect(lines[0]).toMatchObject({ type: 'fee', payment_id: null, booked: 0 });
  });
});
