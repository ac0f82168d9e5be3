import { feeOf } from '../providers/fees.ts';
import type { FeeSchedule, PayoutLine, ProviderPayout } from '../providers/types.ts';
import type { ExceptionKind } from '../model/reconciliation.ts';

/** The record a line names, as our ledger holds it: `amount` is its size (a refund's or dispute's, not signed). */
export interface LedgerObject {
  payment_id: string;
  /** when our ledger moved the money (ISO 8601): the payment's capture, the refund's or dispute's creation */
  moved_at: string;
  refund_id: string | null;
  dispute_id: string | null;
  amount: number;
  currency: string;
}

/**
 * Money our ledger moved at the connector account within a payout's window, which the payout should carry: a capture
 * (`refund_id` null, `amount` positive) or a refund (negative).
 */
export interface ExpectedMovement {
  payment_id: string;
  refund_id: string | null;
  amount: number;
  currency: string;
}

/** A movement as payouts and our ledger both name it: its payment, and its refund if it is one. */
export const movementKey = (m: { payment_id: string | null; refund_id: string | null }) => `${m.payment_id}#${m.refund_id ?? ''}`;

export interface MatchedLine {
  type: PayoutLine['type'];
  amount: number;
  fee: number;
  net: number;
  source: string;
  payment_id: string | null;
  refund_id: string | null;
  dispute_id: string | null;
  /** the line's day (its fee is booked on it) */
  day: string;
  /** what our ledger had for the line, signed as the line (what leaves the account's held funds); 0 when unmatched */
  booked: number;
}

export interface Finding {
  kind: ExceptionKind;
  source: string | null;
  payment_id: string | null;
  refund_id: string | null;
  dispute_id: string | null;
  expected: number | string | null;
  actual: number | string | null;
}

/** Lines that name a payment, refund or dispute; the provider's own fees and adjustments name none of ours. */
const NAMES_OURS = new Set<PayoutLine['type']>(['charge', 'refund', 'dispute']);

/**
 * Matches a payout's lines to our records (`found`: each line's record, by its position) and names every difference:
 * a line of ours not found, or of another currency, amount or fee (charges only: `fees` is the account's schedule);
 * a capture or refund of the window without a line; a payout whose amount is not the sum of its lines' net. Pure.
 */
export function matchPayout(
  payout: ProviderPayout,
  found: readonly (LedgerObject | undefined)[],
  expected: readonly ExpectedMovement[],
  fees: FeeSchedule,
): { lines: MatchedLine[]; findings: Finding[] } {
  const findings: Finding[] = [];
  const lines = payout.lines.map((line, i): MatchedLine => {
    const record = found[i];
    const ids = { payment_id: record?.payment_id ?? null, refund_id: record?.refund_id ?? null, dispute_id: record?.dispute_id ?? null };
    const finding = (kind: ExceptionKind, expected: number | string | null, actual: number | string | null) =>
      findings.push({ kind, source: line.source, ...ids, expected, actual });
    const sign = line.amount < 0 ? -1 : 1;
    const base = { type: line.type, amount: line.amount, fee: line.fee, net: line.net, source: line.source, ...ids, day: line.created.slice(0, 10) };
    if (!NAMES_OURS.has(line.type)) return { ...base, booked: 0 };
    if (!record) {
      finding('missing_in_ledger', null, line.amount);
      return { ...base, booked: 0 };
    }
    if (record.currency !== line.currency) {
      finding('currency_mismatch', record.currency, line.currency);
      return { ...base, booked: 0 };
    }
    if (record.amount !== Math.abs(line.amount)) finding('amount_mismatch', sign * record.amount, line.amount);
    if (line.type === 'charge' && feeOf(fees, record.amount) !== line.fee) finding('fee_mismatch', feeOf(fees, record.amount), line.fee);
    return { ...base, booked: sign * record.amount };
  });
  const paid = new Set(lines.filter((l) => l.type === 'charge' || l.type === 'refund').map(movementKey));
  for (const m of expected.filter((e) => e.currency === payout.currency && !paid.has(movementKey(e))))
    findings.push({
      kind: 'missing_in_provider',
      source: null,
      payment_id: m.payment_id,
      refund_id: m.refund_id,
      dispute_id: null,
      expected: m.amount,
      actual: null,
    });
  const sumOfNet = payout.lines.reduce((sum, line) => sum + line.net, 0);
  if (sumOfNet !== payout.amount)
    findings.push({
      kind: 'payout_total_mismatch',
      source: payout.reference,
      payment_id: null,
      refund_id: null,
      dispute_id: null,
      expected: sumOfNet,
      actual: payout.amount,
    });
  return { lines, findings };
}
