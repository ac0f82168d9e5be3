/**
 * What a fake's payout control (`POST /_fake/payouts`) may get wrong, each on the payout's oldest charge line: leave
 * it out (`drop_line`), pay another amount for it (`line_amount_delta`), take another fee (`fee_delta`); or pay a
 * total that is not the sum of the lines' net (`total_delta`). Every provider fake offers the same knobs.
 */
export interface PayoutFaults {
  drop_line?: boolean;
  line_amount_delta?: number;
  fee_delta?: number;
  total_delta?: number;
}

const PAYOUT_FAULTS = ['drop_line', 'line_amount_delta', 'fee_delta', 'total_delta'] as const;

/** The faults of a control call's JSON body (`drop_line` true or false, the deltas integers), or why not. */
export function payoutFaultsOf(body: Record<string, unknown>): { faults: PayoutFaults } | { problem: string } {
  const faults: Record<string, unknown> = {};
  for (const name of PAYOUT_FAULTS) {
    const value = body[name];
    if (value === undefined) continue;
    const valid = name === 'drop_line' ? typeof value === 'boolean' : Number.isInteger(value);
    if (!valid) return { problem: `${name} must be ${name === 'drop_line' ? 'true or false' : 'an integer'}` };
    faults[name] = value;
  }
  return { faults: faults as PayoutFaults };
}
