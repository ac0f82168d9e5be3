/** How Adyen names what we sent it, and what it publishes, read back. */

/** A digest is what adyenKey sent for a key longer than 64 characters: it cannot be turned back into our id. */
export const refundIdOf = (merchantReference: string) =>
  /^[0-9a-f]{64}$/.test(merchantReference) || !merchantReference ? undefined : merchantReference;

/** A settlement details report's file name: Adyen's for batch `n`. */
export const settlementReportName = (batch: number) => `settlement_detail_report_batch_${batch}.csv`;
export const SETTLEMENT_REPORT_NAME = /^settlement_detail_report_batch_\d+\.csv$/;
