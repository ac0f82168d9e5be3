/**
 * What Braintree says of our payments, as ProviderChanges: its dispute words in ours (webhook notifications use them
 * too), and `changesOf`, one transaction's status, refunds and disputes (one GraphQL read), as the changes the
 * reconciler applies like notifications.
 */
import { providerDeadlines } from '../deadlines.ts';
import { within } from '../transport.ts';
import type { DisputeReason, DisputeStatus, ProviderChange } from '../types.ts';
import { moneyOf } from './amounts.ts';
import { type Endpoint, post } from './client.ts';
import { TRANSACTION_CHANGES } from './queries.ts';

/**
 * Braintree's dispute statuses and reasons in our words. The GraphQL API spells them in capitals (`OPEN`, `FRAUD`),
 * webhook notifications in lower case (`open`, `fraud`): both are read.
 */
const STATUSES: Readonly<Record<string, DisputeStatus>> = {
  OPEN: 'needs_response',
  // DISPUTED: the merchant's evidence was submitted (finalized) and the processor decides
  DISPUTED: 'under_review',
  UNDER_REVIEW: 'under_review',
  WON: 'won',
  LOST: 'lost',
  // the merchant let the reply-by date pass: the cardholder keeps the money
  EXPIRED: 'lost',
  ACCEPTED: 'accepted',
  AUTO_ACCEPTED: 'accepted',
};

const REASONS: Readonly<Record<string, DisputeReason>> = {
  FRAUD: 'fraudulent',
  DUPLICATE: 'duplicate',
  PRODUCT_NOT_RECEIVED: 'product_not_received',
  PRODUCT_UNSATISFACTORY: 'product_unacceptable',
  CANCELLED_RECURRING_TRANSACTION: 'subscription_canceled',
  CREDIT_NOT_PROCESSED: 'credit_not_processed',
  NOT_RECOGNIZED: 'unrecognized',
};

/** undefined: a status we do not know (the change is not followed rather than guessed). */
export const disputeStatus = (status: string | null | undefined): DisputeStatus | undefined => STATUSES[(status ?? '').toUpperCase()];

/** GENERAL, RETRIEVAL, INVALID_ACCOUNT, TRANSACTION_AMOUNT_DIFFERS and anything new: `general`. */
export const disputeReason = (reason: string | null | undefined): DisputeReason => REASONS[(reason ?? '').toUpperCase()] ?? 'general';

/** Braintree's reply-by date (a day, when no `responseDeadline` is given) as an instant: the end of that day, UTC. */
export const replyBy = (date: string) => new Date(`${date}T23:59:59Z`).toISOString();

interface WireMoney {
  value?: string | null;
  currencyCode?: string | null;
}
interface WireEvent {
  status?: string | null;
  processorResponse?: { legacyCode?: string | null; message?: string | null } | null;
}
interface WireRefund {
  id: string;
  orderId?: string | null;
  status?: string | null;
  amount?: WireMoney | null;
  statusHistory?: WireEvent[] | null;
}
export interface WireDispute {
  id: string;
  status?: string | null;
  amountDisputed?: WireMoney | null;
  responseDeadline?: string | null;
  replyByDate?: string | null;
  processorResponse?: { reason?: string | null } | null;
  transaction?: { id: string } | null;
}
interface WireChanges {
  id: string;
  status?: string | null;
  amount?: WireMoney | null;
  statusHistory?: WireEvent[] | null;
  refunds?: WireRefund[] | null;
  disputes?: WireDispute[] | null;
}

/** Captured: money taken (settlement may still decline it, which is reported then). */
const CAPTURED = new Set(['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLEMENT_PENDING', 'SETTLED', 'SETTLEMENT_CONFIRMED']);
/** A refund (a credit) Braintree accepted and has not settled yet. */
const REFUND_PENDING = new Set(['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLEMENT_PENDING']);
const REFUND_SETTLED = new Set(['SETTLED', 'SETTLEMENT_CONFIRMED']);

/** Our refund ids (`ref_…`): a refund's orderId defaults to the transaction's (our attempt key), which is not one. */
export const ourRefundId = (orderId: string | null | undefined): string | undefined => (orderId?.startsWith('ref_') ? orderId : undefined);

export async function transactionChanges(endpoint: Endpoint, reference: string, signal?: AbortSignal): Promise<ProviderChange[] | undefined> {
  const answer = await post<{ node: WireChanges | null }>(
    endpoint,
    TRANSACTION_CHANGES,
    { id: reference },
    within(providerDeadlines.operationMs, signal),
  );
  if (!answer.ok) return answer.errorClass === 'NOT_FOUND' ? [] : undefined;
  const tx = answer.data.node;
  if (!tx) return [];
  return [
    ...paymentChanges(tx),
    ...(tx.refunds ?? []).flatMap((r) => refundChange(tx, r)),
    ...(tx.disputes ?? []).flatMap((d) => disputeChange(d, tx.id)),
  ];
}

function paymentChanges(tx: WireChanges): ProviderChange[] {
  const status = tx.status ?? '';
  const paymentReference = tx.id;
  if (CAPTURED.has(status)) return [{ object: 'capture', status: 'succeeded', paymentReference }];
  if (status === 'SETTLEMENT_DECLINED') {
    const reason = declineReason(tx.statusHistory, status);
    return [{ object: 'capture', status: 'failed', paymentReference, ...(reason ? { reason } : {}) }];
  }
  if (status !== 'VOIDED') return [];
  const wasCaptured = tx.statusHistory?.some((e) => e.status === 'SUBMITTED_FOR_SETTLEMENT');
  if (!wasCaptured) return [{ object: 'cancellation', status: 'succeeded', paymentReference }];
  // A capture voided before settlement: how the connector refunds it all (the refund's reference is the transaction).
  const amount = moneyOf(tx.amount?.value, tx.amount?.currencyCode);
  return [
    { object: 'capture', status: 'succeeded', paymentReference },
    ...(amount ? [{ object: 'refund' as const, status: 'succeeded' as const, paymentReference, refundReference: tx.id, ...amount }] : []),
  ];
}

function refundChange(tx: WireChanges, refund: WireRefund): ProviderChange[] {
  const status = refund.status ?? '';
  const amount = moneyOf(refund.amount?.value, refund.amount?.currencyCode ?? tx.amount?.currencyCode);
  if (!amount) return [];
  const refundId = ourRefundId(refund.orderId);
  const base = { object: 'refund' as const, paymentReference: tx.id, refundReference: refund.id, ...(refundId ? { refundId } : {}), ...amount };
  if (REFUND_PENDING.has(status)) return [{ ...base, status: 'pending' }];
  if (REFUND_SETTLED.has(status)) return [{ ...base, status: 'succeeded' }];
  const reason = declineReason(refund.statusHistory, status) ?? `Braintree refund status ${status.toLowerCase()}`;
  return [{ ...base, status: 'failed', reason }];
}

/** A dispute in our words; none for a status we do not know. */
export function disputeChange(dispute: WireDispute, paymentReference = dispute.transaction?.id): ProviderChange[] {
  const status = disputeStatus(dispute.status);
  const amount = moneyOf(dispute.amountDisputed?.value, dispute.amountDisputed?.currencyCode);
  if (!status || !amount || !paymentReference) return [];
  return [
    {
      object: 'dispute',
      status,
      paymentReference,
      disputeReference: dispute.id,
      ...amount,
      reason: disputeReason(dispute.processorResponse?.reason),
      evidenceDueBy: dispute.responseDeadline ?? (dispute.replyByDate ? replyBy(dispute.replyByDate) : null),
    },
  ];
}

/** The processor's words on the event that put the payment (or refund) in `status`. */
function declineReason(history: WireEvent[] | null | undefined, status: string): string | undefined {
  const event = history?.find((e) => e.status === status);
  const response = event?.processorResponse;
  if (!response?.message && !response?.legacyCode) return undefined;
  return [response.legacyCode, response.message].filter(Boolean).join(' ');
}
