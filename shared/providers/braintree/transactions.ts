/** Transactions as the documents read them, what state each is in, and the calls that read or reverse one. */
import { providerDeadlines } from '../deadlines.ts';
import { failedOperation } from '../failures.ts';
import type { MappedFailure, OperationResult } from '../types.ts';
import { type Answer, type Endpoint, post } from './client.ts';
import { mapGatewayRejection, mapProcessorResponse, REFUSAL_CODES } from './errors.ts';
import { REVERSE_TRANSACTION, SEARCH_BY_ORDER_ID, TRANSACTION_BY_ID } from './queries.ts';

export interface WireTransaction {
  id: string;
  orderId?: string | null;
  status?: string | null;
  merchantAccountId?: string | null;
  amount?: { value?: string | null; currencyCode?: string | null } | null;
  paymentMethod?: { id: string; usage?: string | null } | null;
  paymentMethodSnapshot?: { networkTransactionId?: string | null } | null;
  statusHistory?: Array<{
    status?: string | null;
    gatewayRejectionReason?: string | null;
    processorResponse?: { legacyCode?: string | null; message?: string | null } | null;
  }> | null;
  refunds?: Array<{ id: string; orderId?: string | null; status?: string | null; amount?: { value?: string | null } | null }> | null;
}

/** Statuses in which the transaction holds or has taken the customer's money. */
const AUTHORIZED = 'AUTHORIZED';
const CAPTURED = new Set(['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLED', 'SETTLEMENT_PENDING', 'SETTLEMENT_CONFIRMED']);
/** Refundable with refundTransaction (Braintree refunds settled transactions only). */
export const SETTLED = new Set(['SETTLING', 'SETTLED', 'SETTLEMENT_CONFIRMED']);

type TransactionState =
  | { kind: 'held'; captured: boolean }
  | { kind: 'pending' }
  | { kind: 'failed'; failure: MappedFailure }
  /** voided, expired: nothing held */
  | { kind: 'released' };

export function transactionState(tx: WireTransaction): TransactionState {
  const status = tx.status ?? '';
  if (status === AUTHORIZED) return { kind: 'held', captured: false };
  if (CAPTURED.has(status)) return { kind: 'held', captured: true };
  if (status === 'AUTHORIZING') return { kind: 'pending' };
  const event = tx.statusHistory?.find((e) => e.status === status) ?? tx.statusHistory?.[0];
  if (status === 'GATEWAY_REJECTED') return { kind: 'failed', failure: mapGatewayRejection(event?.gatewayRejectionReason) };
  if (status === 'PROCESSOR_DECLINED' || status === 'FAILED') {
    const code = event?.processorResponse?.legacyCode;
    return { kind: 'failed', failure: code ? mapProcessorResponse(code) : mapProcessorResponse(status === 'FAILED' ? '3000' : '2000') };
  }
  return { kind: 'released' };
}

/** The card on file a transaction leaves: its multi-use (vaulted) payment method, or nothing. */
export const vaultedToken = (tx: WireTransaction): string => (tx.paymentMethod?.usage === 'MULTI_USE' ? tx.paymentMethod.id : '');

/** The card network's id of the authorization (a card transaction's `networkTransactionId`), when Braintree gives it. */
export const networkIdOf = (tx: WireTransaction): { networkTransactionId?: string } => {
  const id = tx.paymentMethodSnapshot?.networkTransactionId;
  return id ? { networkTransactionId: id } : {};
};

/** Which transaction under one key counts: one that holds money, else a decline, else any. */
export function mostTelling(transactions: WireTransaction[]): WireTransaction | undefined {
  const rank = (tx: WireTransaction) => ({ held: 0, pending: 1, failed: 2, released: 3 })[transactionState(tx).kind];
  return [...transactions].sort((a, b) => rank(a) - rank(b))[0];
}

/** A call Braintree did not carry out: refused in its own words (REFUSAL_CODES), else as the error map classes it. */
export function failedCall(answer: Extract<Answer<unknown>, { ok: false }>): Extract<OperationResult, { ok: false }> {
  if (answer.legacyCode && REFUSAL_CODES.has(answer.legacyCode)) return { ok: false, reason: 'refused', message: answer.detail ?? answer.message };
  return failedOperation(answer.failure);
}

/** The transactions whose `orderId` is `orderId`. */
export async function searchByOrderId(endpoint: Endpoint, orderId: string, signal: AbortSignal): Promise<Answer<WireTransaction[]>> {
  const answer = await post<{ search: { transactions: { edges: Array<{ node: WireTransaction | null } | null> | null } | null } }>(
    endpoint,
    SEARCH_BY_ORDER_ID,
    { orderId },
    signal,
  );
  if (!answer.ok) return answer;
  const edges = answer.data.search.transactions?.edges ?? [];
  // `is` is exact at Braintree; the filter guards against a looser match anyway.
  const found = edges.flatMap((edge) => (edge?.node && edge.node.orderId === orderId ? [edge.node] : []));
  return { ok: true, data: found };
}

/** One transaction as it stands, or null when Braintree has none by that id. */
export async function readTransaction(endpoint: Endpoint, transactionId: string): Promise<Answer<WireTransaction | null>> {
  const answer = await post<{ node: WireTransaction | null }>(
    endpoint,
    TRANSACTION_BY_ID,
    { id: transactionId },
    AbortSignal.timeout(providerDeadlines.operationMs),
  );
  if (!answer.ok && answer.errorClass === 'NOT_FOUND') return { ok: true, data: null };
  return answer.ok ? { ok: true, data: answer.data.node } : answer;
}

/** reverseTransaction on one transaction: ok when it is voided (or refunded in full, for a settled one). */
export async function reverseTransaction(endpoint: Endpoint, transactionId: string, key: string): Promise<OperationResult> {
  const answer = await post<{ reverseTransaction: { reversal: { __typename: string; id: string; status?: string } | null } }>(
    endpoint,
    REVERSE_TRANSACTION,
    { input: { clientMutationId: key, transactionId } },
    AbortSignal.timeout(providerDeadlines.operationMs),
  );
  if (!answer.ok) {
    if (answer.failure.class !== 'soft') return failedOperation(answer.failure);
    // Refused: already voided (an earlier reversal whose answer was lost) is the same reversal.
    const now = await readTransaction(endpoint, transactionId);
    if (now.ok && now.data && transactionState(now.data).kind === 'released') return { ok: true, reference: transactionId };
    return now.ok ? failedCall(answer) : failedOperation(now.failure);
  }
  return answer.data.reverseTransaction.reversal ? { ok: true, reference: transactionId } : { ok: false, reason: 'unknown' };
}
