/**
 * Typed errors that carry their HTTP status and are safe to show. The error mapper in `shared/http` renders these
 * (and only these) into the error shape of docs/api.md "Answers and errors"; anything else becomes a bare 500.
 */
export type ErrorType =
  'invalid_request_error' | 'authentication_error' | 'permission_error' | 'card_error' | 'rate_limit_error' | 'idempotency_error' | 'api_error';

export interface ErrorDetails {
  param?: string;
  decline_code?: string;
  payment_id?: string;
}

export class AppError extends Error {
  /**
   * True on classes whose errors are raised only when provably nothing was written or sent (no payment, no provider
   * call that may have succeeded): an idempotent request that fails so may run again at once under the same key.
   * Any other server error keeps the key in progress until its lease ends.
   */
  readonly nothingCommitted: boolean = false;

  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The message each status starts with: docs/api.md "Answers and errors" for 400, 401, 402, 404, 429 and 500.
 * None is stated for 409; its text here is that of `idempotency_key_in_use` (docs/api.md "Idempotency"), and a 409 that
 * involves no key says what it is instead (OPERATION_IN_PROGRESS).
 */
export const MESSAGES = {
  400: 'Invalid request body',
  401: 'Invalid API key',
  402: 'Payment declined',
  403: 'Permission denied',
  404: 'Resource not found',
  409: 'Idempotency key in use',
  429: 'Rate limit exceeded (100/min)',
  500: 'Internal server error',
} as const;

/** The 409 of another operation still running on the same object: no Idempotency-Key is involved. */
export const OPERATION_IN_PROGRESS = 'Operation in progress';

/**
 * The spec's message for `status`, followed by `: ` and `reason` when there is one a developer can act on
 * (docs/api.md "Answers and errors"): `Invalid request body: amount must be an integer from 1 to 99999999`.
 */
export const messageFor = (status: keyof typeof MESSAGES, reason?: string): string => (reason ? `${MESSAGES[status]}: ${reason}` : MESSAGES[status]);

export class BadRequest extends AppError {
  /** `code`: one docs/api.md names ("Answers and errors"); the general `parameter_invalid` unless a client acts otherwise */
  constructor(code = 'parameter_invalid', param?: string, reason?: string) {
    super(400, 'invalid_request_error', code, messageFor(400, reason), param ? { param } : {});
  }
}

export class InvalidState extends AppError {
  constructor(param?: string, reason?: string) {
    super(400, 'invalid_request_error', 'invalid_state', messageFor(400, reason), param ? { param } : {});
  }
}

export class ResourceMissing extends AppError {
  constructor(param: string, reason?: string) {
    super(400, 'invalid_request_error', 'resource_missing', messageFor(400, reason), { param });
  }
}

export class Unauthorized extends AppError {
  /** `reason` only where it is safe to show (it must not tell a guesser which part of a credential was right) */
  constructor(code = 'invalid_api_key', reason?: string) {
    super(401, 'authentication_error', code, messageFor(401, reason));
  }
}

/**
 * The request may not do this: its credential lacks the permission (`permission_denied`), or it came from where it may
 * not (a shopper's form posted from another site; `ip_not_allowed`: an address outside the key's `allowed_ips`;
 * `csrf_token_invalid`: a write through the session cookie without its session's `X-CSRF-Token`).
 */
export class PermissionDenied extends AppError {
  constructor(reason?: string, code: 'permission_denied' | 'ip_not_allowed' | 'csrf_token_invalid' = 'permission_denied') {
    super(403, 'permission_error', code, messageFor(403, reason));
  }
}

export class NotFound extends AppError {
  /**
   * `reason` names what was not found (`no payment pay_… in test mode`); without one, the chain names the object of
   * the request's path (shared/http/validate.ts `pathIds`).
   */
  constructor(readonly reason?: string) {
    super(404, 'invalid_request_error', 'resource_missing', messageFor(404, reason));
  }
}

export class RateLimited extends AppError {
  /** refused before anything of the request was written (the function awaits its admission before its first write) */
  override readonly nothingCommitted = true;
  /** `limit`: the endpoint's requests per minute, named in the message (docs/api.md "Answers and errors" for the default 100) */
  constructor(limit: number, headers: Record<string, string>) {
    super(429, 'rate_limit_error', 'rate_limit_exceeded', MESSAGES[429].replace('100', String(limit)), {}, headers);
  }
}

export class IdempotencyKeyReused extends AppError {
  constructor() {
    super(400, 'idempotency_error', 'idempotency_key_reused', messageFor(400, 'this Idempotency-Key was already used with another request'), {
      param: 'Idempotency-Key',
    });
  }
}

export class IdempotencyKeyInUse extends AppError {
  /** `retryAfterSeconds`: until the first request's lease ends (at least 1), sent as `Retry-After` */
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(
      409,
      'idempotency_error',
      'idempotency_key_in_use',
      messageFor(409, `a request with this Idempotency-Key is still being processed; retry in ${seconds} s`),
      {},
      { 'Retry-After': String(seconds) },
    );
  }
}

/**
 * Another operation holds the object (a capture, void or refund whose provider call is running or waits for the
 * reconciler). Nothing was written: an idempotent request is not answered with it for good, a retry runs again.
 */
export class OperationInProgress extends AppError {
  override readonly nothingCommitted = true;
  constructor(retryAfterSeconds: number, what = 'this payment') {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(
      409,
      'invalid_request_error',
      'operation_in_progress',
      `${OPERATION_IN_PROGRESS}: another operation on ${what} is still running; retry in ${seconds} s`,
      {},
      {
        'Retry-After': String(seconds),
      },
    );
  }
}

export class Declined extends AppError {
  constructor(declineCode: string, paymentId: string, reason?: string) {
    super(402, 'card_error', 'card_declined', messageFor(402, reason), { decline_code: declineCode, payment_id: paymentId });
  }
}

/**
 * The provider answered that it will not do it (a refund of money it no longer holds, an action on a dispute it
 * closed): recorded as such (a refund `failed`), and asking again would change nothing.
 */
export class ProviderRefused extends AppError {
  constructor(provider: string, what: string, providerMessage: string, param?: string) {
    super(
      400,
      'invalid_request_error',
      'provider_refused',
      messageFor(400, `${provider} refused ${what}: ${providerMessage}`),
      param ? { param } : {},
    );
  }
}

/**
 * An automatic payment was authorized but not captured: the payment stays `succeeded` (funds held). The provider
 * refused the capture (400 `provider_refused`: capture or void it), or could not be reached (500
 * `provider_outcome_unknown`: the capture stays begun and is tried again by a retry or the reconciler).
 */
export class CaptureFailed extends AppError {
  constructor(paymentId: string, cause: ProviderRefused | OutcomeUnknown) {
    const refused = cause instanceof ProviderRefused;
    const what = `payment ${paymentId} is authorized (succeeded) but not captured`;
    const reason = refused
      ? `${what}: ${cause.message.replace(`${MESSAGES[400]}: `, '')}; capture it with POST /api/payments/${paymentId}/capture, or void it`
      : `${what} yet: the provider could not be reached; retry with the same Idempotency-Key, or the reconciler captures it within minutes`;
    const status = refused ? 400 : 500;
    const code = refused ? 'provider_refused' : 'provider_outcome_unknown';
    super(status, refused ? 'invalid_request_error' : 'api_error', code, messageFor(status, reason), { payment_id: paymentId });
  }
}

/** No provider could process the payment (all down or failing): nothing was charged. */
export class ProvidersUnavailable extends AppError {
  override readonly nothingCommitted = true;

  /** `reason`: which providers failed and how, where the caller knows */
  constructor(reason?: string) {
    super(500, 'api_error', 'providers_unavailable', messageFor(500, reason));
  }
}

/**
 * A provider was asked and its answer never came, nor could it be found: the payment is recorded `failed` and the
 * reconciler reverses whatever the provider may hold. Nothing is charged.
 */
export class OutcomeUnknown extends AppError {
  constructor(paymentId: string) {
    super(
      500,
      'api_error',
      'provider_outcome_unknown',
      messageFor(500, "the provider's answer was lost; retry with the same Idempotency-Key, or the reconciler finishes it within minutes"),
      {
        payment_id: paymentId,
      },
    );
  }
}
