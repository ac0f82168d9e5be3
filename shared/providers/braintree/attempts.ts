import { providerDeadlines } from '../deadlines.ts';
import { failedOperation } from '../failures.ts';
import type { LookupResult, OperationResult } from '../types.ts';
import type { Endpoint } from './client.ts';
import { mostTelling, networkIdOf, reverseTransaction, searchByOrderId, transactionState, vaultedToken } from './transactions.ts';

/** Braintree keeps working on a request for up to 60 s after the client gave up ("gateway timeout"). */
export const GATEWAY_TIMEOUT_MS = 60_000;

/**
 * Authorization requests this process sent whose answer it never got, by key: Braintree may still be working on them.
 * (Per process: a reconciler in another process acts only after the operation's lease, see the report on the window.)
 */
export const inFlight = new Map<string, number>();
const stillInFlight = (key: string, now = Date.now()): boolean => {
  for (const [k, sentAt] of inFlight) if (now - sentAt >= GATEWAY_TIMEOUT_MS) inFlight.delete(k);
  return inFlight.has(key);
};

/** What is held under our key (the transactions' `orderId`). */
export async function lookupAttempt(endpoint: Endpoint, idempotencyKey: string, signal?: AbortSignal): Promise<LookupResult> {
  const found = await searchByOrderId(endpoint, idempotencyKey, signal ?? AbortSignal.timeout(providerDeadlines.lookupMs));
  if (!found.ok) return { found: 'unknown' };
  const tx = mostTelling(found.data);
  if (!tx) return { found: 'none' };
  const state = transactionState(tx);
  if (state.kind === 'held') return { found: 'authorized', reference: tx.id, providerToken: vaultedToken(tx), ...networkIdOf(tx) };
  if (state.kind === 'pending') return { found: 'unknown' };
  if (state.kind === 'failed' && state.failure.class === 'hard') return { found: 'declined', declineCode: state.failure.declineCode };
  // A soft failure or a voided authorization: nothing is held under the key.
  return { found: 'none' };
}

/** Voids whatever authorization is held under our key; never "nothing held" while a request under it may still land. */
export async function reverseAttempt(endpoint: Endpoint, idempotencyKey: string): Promise<OperationResult> {
  const found = await searchByOrderId(endpoint, idempotencyKey, AbortSignal.timeout(providerDeadlines.operationMs));
  if (!found.ok) return failedOperation(found.failure);
  for (const tx of found.data) {
    const state = transactionState(tx);
    if (state.kind === 'pending') return { ok: false, reason: 'unknown' };
    // A captured payment is not ours to take back here (reverseTransaction would void or refund it).
    if (state.kind === 'held' && state.captured) return { ok: false, reason: 'processing_error' };
    if (state.kind === 'held') {
      const reversed = await reverseTransaction(endpoint, tx.id, idempotencyKey);
      if (!reversed.ok) return reversed;
    }
  }
  const held = found.data.find((tx) => transactionState(tx).kind === 'held');
  if (!held && stillInFlight(idempotencyKey)) {
    // Nothing found, but a request under this key may still land: it cannot be closed at Braintree.
    return { ok: false, reason: 'unknown' };
  }
  return { ok: true, reference: held?.id ?? idempotencyKey };
}
