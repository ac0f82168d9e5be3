/** The payment providers the service routes to. Lowercase names are part of the API. */
export const PROVIDERS = ['stripe', 'adyen', 'braintree'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Card data as it arrives on a create. Lives only in memory for the length of the authorization call. */
export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

export interface AuthorizeRequest {
  /** our payment id (the provider's reference to our order) */
  paymentId: string;
  /** our operation's id for this attempt: the provider's idempotency key, so one attempt never authorizes twice */
  idempotencyKey: string;
  amount: number;
  currency: string;
  /** a new card, or… */
  card?: CardInput;
  /** …a card on file: a token this provider issued for an earlier payment */
  providerToken?: string;
  /** 1 for the first provider tried, 2 for the first failover, … */
  attempt: number;
  /**
   * Aborted when the attempt's deadline passes: the connector stops and must leave nothing authorized (a live
   * connector sends the provider's idempotency key, so the provider's own reversal can find the attempt).
   */
  signal?: AbortSignal;
}

/**
 * Soft failures leave nothing held at the provider (a `timeout` is one only once a look-up found nothing): another
 * provider may be tried.
 * Declines are the card's answer and are final. `unknown` (a timeout or a connection lost after sending) may hide an
 * accepted request: it is resolved (asked again under the same idempotency key) before anything else is tried.
 */
export type SoftFailure = 'processing_error' | 'provider_down' | 'timeout';

export type AuthorizeResult =
  | { outcome: 'approved'; reference: string; providerToken: string; latencyMs: number }
  | { outcome: 'declined'; declineCode: string; latencyMs: number }
  | { outcome: 'soft_failure'; reason: SoftFailure; latencyMs: number }
  | { outcome: 'unknown'; latencyMs: number };

export type OperationResult = { ok: true; reference: string } | { ok: false; reason: SoftFailure | 'unknown' };

/** What the provider holds under one of our idempotency keys. */
export type LookupResult =
  | { found: 'authorized'; reference: string; providerToken: string }
  | { found: 'declined'; declineCode: string }
  | { found: 'none' }
  | { found: 'unknown' };

/**
 * One connector per provider; the sandbox back ends and live connectors implement the same interface. Every call
 * that changes money carries our idempotency key: the same call again under the same key has no second effect.
 */
export interface Connector {
  readonly name: ProviderName;
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  /** The authorization made under `idempotencyKey`, if any: how an `unknown` authorization is resolved. */
  lookup(idempotencyKey: string, signal?: AbortSignal): Promise<LookupResult>;
  /**
   * Cancels whatever the authorization under `idempotencyKey` holds, and makes sure a request under that key still
   * in flight can no longer authorize (ok: nothing is or will be held under it).
   */
  reverse(idempotencyKey: string): Promise<OperationResult>;
  capture(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult>;
  void(reference: string, idempotencyKey: string): Promise<OperationResult>;
  refund(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult>;
}

/** A provider's price for a card payment: `percent` of the amount plus `fixed` minor units. */
export interface FeeSchedule {
  percent: number;
  fixed: number;
}
