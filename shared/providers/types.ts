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
  /**
   * With a new card: keep it at the provider for later merchant-initiated charges of this customer (renewals); the
   * approved answer's `providerToken` is then reusable (Stripe customer + PaymentMethod with `setup_future_usage`,
   * Adyen `storePaymentMethod` + `shopperReference`, Braintree vaulted payment method). With `providerToken`: the
   * charge is merchant-initiated on that stored card (Stripe `off_session`, Adyen `ContAuth` + `Subscription`).
   */
  storeFor?: { customerReference: string; email?: string | null };
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
  | {
      outcome: 'approved';
      reference: string;
      /** a reusable card-on-file token, when the card was stored (storeFor) */ providerToken?: string;
      latencyMs: number;
    }
  | { outcome: 'declined'; declineCode: string; latencyMs: number }
  | { outcome: 'soft_failure'; reason: SoftFailure; latencyMs: number }
  | { outcome: 'unknown'; latencyMs: number };

export type OperationResult = { ok: true; reference: string } | { ok: false; reason: SoftFailure | 'unknown' };

/** What the provider holds under one of our idempotency keys. */
export type LookupResult =
  | { found: 'authorized'; reference: string; providerToken?: string }
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
  /**
   * The authorization made under `idempotencyKey`, if any: how an `unknown` authorization is resolved. `replay` is
   * the original request when the caller still has it (the create that saw the timeout): a provider that keeps
   * answers per idempotency key (Stripe, Adyen) is asked the same request again under the same key; without it
   * (the reconciler, card data long gone) the connector searches by our reference.
   */
  lookup(idempotencyKey: string, signal?: AbortSignal, replay?: AuthorizeRequest): Promise<LookupResult>;
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

export type Mode = 'test' | 'live';

/**
 * How a provider's raw answer is classed (DECISIONS "Error map"): `hard` is the card's final answer (no failover),
 * `soft` a processing error and `outage` an unreachable provider (both fail over), `unknown` a timeout or a
 * connection lost after sending (resolved before anything else is tried).
 */
export type FailureClass = 'hard' | 'soft' | 'outage' | 'unknown';
export interface MappedFailure {
  declineCode: string;
  class: FailureClass;
}

export type Verification = { ok: true } | { ok: false; reason: string };

/** The connector account a live connector acts for: its id (`con_…`) and mode. */
export interface ConnectorAccountRef {
  id: string;
  mode: Mode;
}

/**
 * One provider's live integration (`shared/providers/<name>/`): how its credentials look, how they are checked, and
 * the connector that uses them. Credentials are handed in unsealed, in memory only: never logged, never returned.
 */
export interface ProviderModule<Credentials extends object = Record<string, unknown>> {
  readonly provider: ProviderName;
  /** the credentials' schema (valibot), checked on connector create and update */
  readonly credentialsSchema: import('valibot').GenericSchema<unknown, Credentials>;
  /** what a merchant may see of the credentials, e.g. `…4242` (never enough to use them) */
  hint(credentials: Credentials): string;
  /** why these credentials cannot act in `mode` (a Stripe `sk_test_` key on a live connector), or undefined */
  modeMismatch(credentials: Credentials, mode: Mode): string | undefined;
  /** one authenticated, read-only call to the provider: ok, or the provider's reason */
  verify(credentials: Credentials, mode: Mode, signal?: AbortSignal): Promise<Verification>;
  connect(credentials: Credentials, account: ConnectorAccountRef): Connector;
}
