/**
 * What is the same about a request at every provider: how long it may take, and what it means when it got no answer
 * (an error code proving it never left this machine is an outage; anything after it may have left, such as a timeout,
 * a reset or closed socket or our abort, may hide a request the provider carried out, so it is unknown).
 */
import type { MappedFailure } from './types.ts';

/** Transport error codes that prove the request never left this machine (no connection, name, route, address or TLS). */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A request that got no answer: an outage when it provably never left (or the caller knows it was not sent), else unknown. */
export function mapTransportError(error: unknown, { sent = true }: { sent?: boolean } = {}): MappedFailure {
  const notSent = !sent || errorCodes(error).some((code) => NOT_SENT_CODES.has(code));
  return { declineCode: 'processing_error', class: notSent ? 'outage' : 'unknown' };
}

/** The `code`s of an error, its causes and (for a connection tried on several addresses) their aggregated errors. */
function errorCodes(error: unknown, depth = 0): string[] {
  if (!error || typeof error !== 'object' || depth > 5) return [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  return [
    ...(typeof code === 'string' ? [code] : []),
    ...errorCodes(cause, depth + 1),
    ...(Array.isArray(errors) ? errors.flatMap((e) => errorCodes(e, depth + 1)) : []),
  ];
}

/** The caller's signal (the attempt's deadline), capped by our own request timeout. */
export const within = (timeoutMs: number, signal?: AbortSignal) =>
  signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
