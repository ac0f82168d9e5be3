/**
 * Typed errors that carry their HTTP status and are safe to show. The error mapper in `shared/http` renders these
 * (and only these) into the error shape of DECISIONS.md; anything else becomes a bare 500.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'card_error'
  | 'rate_limit_error'
  | 'idempotency_error'
  | 'api_error';

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

export const MESSAGES = {
  400: 'Invalid request body',
  401: 'Invalid API key',
  402: 'Payment declined',
  404: 'Resource not found',
  409: 'Idempotency key in use',
  429: 'Rate limit exceeded (100/min)',
  500: 'Internal server error',
} as const;

export class BadRequest extends AppError {
  constructor(code = 'invalid_request', param?: string) {
    super(400, 'invalid_request_error', code, MESSAGES[400], param ? { param } : {});
  }
}

export class InvalidState extends AppError {
  constructor(param?: string) {
    super(400, 'invalid_request_error', 'invalid_state', MESSAGES[400], param ? { param } : {});
  }
}

export class ResourceMissing extends AppError {
  constructor(param: string) {
    super(400, 'invalid_request_error', 'resource_missing', MESSAGES[400], { param });
  }
}

export class Unauthorized extends AppError {
  constructor(code = 'invalid_api_key') {
    super(401, 'authentication_error', code, MESSAGES[401]);
  }
}

export class NotFound extends AppError {
  constructor() {
    super(404, 'invalid_request_error', 'resource_missing', MESSAGES[404]);
  }
}

export class RateLimited extends AppError {
  constructor(headers: Record<string, string>) {
    super(429, 'rate_limit_error', 'rate_limit_exceeded', MESSAGES[429], {}, headers);
  }
}

export class IdempotencyKeyReused extends AppError {
  constructor() {
    super(400, 'idempotency_error', 'idempotency_key_reused', MESSAGES[400], { param: 'Idempotency-Key' });
  }
}

export class IdempotencyKeyInUse extends AppError {
  /** `retryAfterSeconds`: until the first request's lease ends (at least 1), sent as `Retry-After` */
  constructor(retryAfterSeconds: number) {
    super(409, 'idempotency_error', 'idempotency_key_in_use', MESSAGES[409], {}, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export class Declined extends AppError {
  constructor(declineCode: string, paymentId: string) {
    super(402, 'card_error', 'card_declined', MESSAGES[402], { decline_code: declineCode, payment_id: paymentId });
  }
}

/** No provider could process the payment (all down or failing): nothing was charged. */
export class ProvidersUnavailable extends AppError {
  override readonly nothingCommitted = true;

  constructor() {
    super(500, 'api_error', 'providers_unavailable', MESSAGES[500]);
  }
}
