import { authenticated } from '../../shared/http/types.ts';
import type { HttpHandler } from '../../shared/http/index.ts';

/**
 * The error statuses an operation documents, derived from how its handler is built (shared/http):
 * - 400: every operation (a query parameter it does not take is `parameter_unknown`); and a malformed body or
 *   query, a state move refused as `invalid_state`, a reused Idempotency-Key;
 * - 401 and 403 (the credential's permission, its allowed addresses): merchant auth; 404: it addresses a resource by id; 409: Idempotency-Key honoured (a first request still
 *   running); 429: rate limited;
 * - and what the function itself raises (`errors`: 401 from verify-otp, 402/500 from the providers).
 */
export function errorStatuses(options: HttpHandler['options']): number[] {
  const statuses = new Set([400, ...(options.errors ?? [])]);
  if (authenticated(options.auth)) statuses.add(401).add(403);
  if (options.params && Object.keys(options.params).length > 0) statuses.add(404);
  if (options.idempotent && authenticated(options.auth)) statuses.add(409);
  if (options.rateLimit) statuses.add(429);
  return [...statuses].sort((a, b) => a - b);
}
