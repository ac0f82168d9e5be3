/** What a failure, classed by a provider's error map, answers to the core: the same at every connector. */
import type { AuthorizeResult, FailureClass, MappedFailure, OperationResult } from './types.ts';

/** Our SoftFailure reason for a failover class. */
export const softReason = (failureClass: FailureClass): 'provider_down' | 'processing_error' =>
  failureClass === 'outage' ? 'provider_down' : 'processing_error';

/** An authorization that did not go through: the card's answer, a soft failure (another provider may be tried), or unknown. */
export function failedAuthorization(failure: MappedFailure, latencyMs: number): AuthorizeResult {
  if (failure.class === 'hard') return { outcome: 'declined', declineCode: failure.declineCode, latencyMs };
  if (failure.class === 'unknown') return { outcome: 'unknown', latencyMs };
  return { outcome: 'soft_failure', reason: softReason(failure.class), latencyMs };
}

/** A capture, void, refund or reversal that did not go through: refused (nothing happened), down, or unknown. */
export function failedOperation(failure: MappedFailure): Extract<OperationResult, { ok: false }> {
  if (failure.class === 'unknown') return { ok: false, reason: 'unknown' };
  return { ok: false, reason: softReason(failure.class) };
}
