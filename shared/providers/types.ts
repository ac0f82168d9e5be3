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
  /** our payment id: a live connector sends it as the provider's idempotency key, so one id never charges twice */
  paymentId: string;
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

/** Soft failures may be retried at another provider; declines are the card's answer and are final. */
export type SoftFailure = 'processing_error' | 'timeout' | 'provider_down';

export type AuthorizeResult =
  | { outcome: 'approved'; reference: string; providerToken: string; latencyMs: number }
  | { outcome: 'declined'; declineCode: string; latencyMs: number }
  | { outcome: 'soft_failure'; reason: SoftFailure; latencyMs: number };

export type OperationResult = { ok: true; reference: string } | { ok: false; reason: SoftFailure };

/** One connector per provider; the sandbox back ends and live connectors implement the same interface. */
export interface Connector {
  readonly name: ProviderName;
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  capture(reference: string, amount: number, currency: string): Promise<OperationResult>;
  void(reference: string): Promise<OperationResult>;
  refund(reference: string, amount: number, currency: string): Promise<OperationResult>;
}

/** A provider's price for a card payment: `percent` of the amount plus `fixed` minor units. */
export interface FeeSchedule {
  percent: number;
  fixed: number;
}
