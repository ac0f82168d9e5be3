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
  constructor(param?: string, reason?: string) {
    super(400, 'invalid_request_error', 'invalid_state', reason ? `${MESSAGES[400]}: ${reason}` : MESSAGES[400], param ? { param } : {});
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
  constructor() {
    super(409, 'idempotency_error', 'idempotency_key_in_use', MESSAGES[409]);
  }
}

export class Declined extends AppError {
  constructor(declineCode: string, paymentId: string) {
    super(402, 'card_error', 'card_declined', MESSAGES[402], { decline_code: declineCode, payment_id: paymentId });
  }
}

/** No provider could process the payment (all down or failing): nothing was charged. */
export class ProvidersUnavailable extends AppError {
  constructor() {
    super(500, 'api_error', 'providers_unavailable', MESSAGES[500]);
  }
}

/**
 * A provider was asked and its answer never came, nor could it be found: the payment is recorded `failed` and the
 * reconciler reverses whatever the provider may hold. Nothing is charged.
 */
export class OutcomeUnknown extends AppError {
  constructor(paymentId: string) {
    super(500, 'api_error', 'provider_outcome_unknown', MESSAGES[500], { payment_id: paymentId });
  }
}
