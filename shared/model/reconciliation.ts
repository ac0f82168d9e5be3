/** What does not match between a payout and our records (docs/api.md "Reconciliation"). */
export const EXCEPTION_KINDS = [
  'missing_in_provider',
  'missing_in_ledger',
  'amount_mismatch',
  'currency_mismatch',
  'fee_mismatch',
  'payout_total_mismatch',
] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];
