/** The payment providers the service routes to. Lowercase names are part of the API. */
export const PROVIDERS = ['stripe', 'adyen', 'braintree'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Card data as it arrives on a create. Lives only in memory for the length of the authorization call. */
export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  /** absent on a merchant-initiated charge of a vaulted card (a CVC is never kept); never sent on one anyway */
  cvc?: string;
}

/**
 * A charge the merchant starts without the cardholder (a renewal, a retry at another account): the card's earlier
 * customer-initiated authorization is named by its network transaction id, so the issuer sees the stored-credential
 * series. `recurringModel` (default `subscription`) is the series' kind: fixed schedule, or unscheduled charges.
 */
export interface MerchantInitiation {
  type: 'merchant';
  networkTransactionId?: string;
  recurringModel?: 'subscription' | 'unscheduled';
}

/** Where a shopper who must authenticate is sent: a GET of `url`, or a POST of `data` (a form) to it. */
export interface ShopperAction {
  url: string;
  method: 'GET' | 'POST';
  data?: Record<string, string>;
}

/** A payment's 3-D Secure outcome, as docs/api.md "3-D Secure" records it. */
export interface ThreeDSecureResult {
  version: string | null;
  flow: 'challenge' | 'frictionless';
  result: 'authenticated' | 'attempted' | 'failed' | 'exempted' | 'not_supported';
  eci: string | null;
  liability_shift: boolean;
}

/**
 * A challenge the shopper failed or left unfinished, as recorded when the provider tells no more of it (Stripe keeps
 * no charge for a failed authentication): no version or ECI known, no liability shift.
 */
export const FAILED_CHALLENGE: ThreeDSecureResult = { version: null, flow: 'challenge', result: 'failed', eci: null, liability_shift: false };

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
   * With a new card: keep it at the provider for this customer's later charges (renewals, next payments); the
   * approved answer's `providerToken` is then reusable (Stripe customer + PaymentMethod with `setup_future_usage`,
   * Adyen `storePaymentMethod` + `shopperReference`, Braintree vaulted payment method).
   */
  storeFor?: {
    customerReference: string;
    email?: string | null;
    /** our saved card (`pm_…`), tagged on the provider's copy where it can be, so its card updater's news finds it */
    paymentMethodId?: string;
  };
  /**
   * Absent: customer-initiated, also with `providerToken` (the shopper pays with the stored card: Stripe without
   * `off_session`, Adyen `Ecommerce` + `CardOnFile`, Braintree no `paymentInitiator`). `merchant` with `providerToken`:
   * the stored card charged without the shopper (Stripe `off_session`, Adyen `ContAuth`, Braintree `RECURRING`).
   * `merchant` with a raw `card`: the vault's number at an account holding no token for it, off-session, with the
   * network transaction id and no CVC (Stripe `mit_exemption`, Adyen `networkTxReference`, Braintree external vault).
   * May be combined with `storeFor`, so the account keeps its own token for next time.
   */
  initiator?: MerchantInitiation;
  /**
   * The shopper is present and may authenticate (3-D Secure): where the provider brings them back, and whether to ask
   * for authentication even when the issuer does not (`required`). Without it, a payment that needs authentication
   * is declined `authentication_required`, as before.
   */
  authentication?: { returnUrl: string; required: boolean };
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
      /** the card network's id of this authorization (Visa Transaction ID, Mastercard Trace ID), when the provider gives it */
      networkTransactionId?: string;
      /** a frictionless or challenged authentication */
      threeDSecure?: ThreeDSecureResult;
      /** the card networks' updater changed the stored card on the way (Adyen's Real Time Account Updater) */
      cardUpdate?: { exp_month: number; exp_year: number; last4?: string };
      latencyMs: number;
    }
  | { outcome: 'requires_action'; reference: string; action: ShopperAction; latencyMs: number }
  | {
      outcome: 'declined';
      declineCode: string;
      /** the authentication the decline followed, when there was one (a failed challenge; passed, then declined) */
      threeDSecure?: ThreeDSecureResult;
      latencyMs: number;
    }
  | { outcome: 'soft_failure'; reason: SoftFailure; latencyMs: number }
  | { outcome: 'unknown'; latencyMs: number };

/**
 * A capture, void, refund or dispute action's answer. `pending`: the provider accepted it and reports the outcome
 * later (Adyen's `received`, a Stripe refund still `pending`): by inbound webhook, or when the reconciler asks.
 * `refused`: the provider answered that it will not do it (nothing happened, and asking again will not change that),
 * with its reason in its own words, e.g. "charge_already_refunded".
 */
export type OperationResult =
  | { ok: true; reference: string; pending?: boolean }
  | { ok: false; reason: SoftFailure | 'unknown' }
  | { ok: false; reason: 'refused'; message: string };

/** What the provider holds under one of our idempotency keys. */
export type LookupResult =
  | { found: 'authorized'; reference: string; providerToken?: string; networkTransactionId?: string }
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
   * After the shopper came back from authenticating (`returned`: the query or form fields the provider's redirect
   * carried), what the provider says of the authorization `reference` now, under `idempotencyKey` (asking again
   * changes nothing): approved (with `threeDSecure`), declined (`authentication_required` when the shopper failed or
   * abandoned it), still `requires_action`, or a soft failure/unknown when the provider could not be asked.
   */
  completeAuthentication(reference: string, returned: Record<string, string>, idempotencyKey: string, signal?: AbortSignal): Promise<AuthorizeResult>;
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
  /**
   * Refunds `amount` of the payment `reference` under `idempotencyKey` (our refund's id, `ref_…`): the provider
   * also tags the refund with it where it can (Stripe `metadata.refund_id`, Adyen `reference`, Braintree `orderId`),
   * so its notifications name our refund.
   */
  refund(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult>;
  /**
   * What the provider says now about the payment `reference`: its capture, cancellation, refunds and disputes, as
   * changes (the reconciler applies them like notifications). `undefined`: the provider cannot be asked (Adyen's
   * Checkout API has no read; its notifications are retried instead) or did not answer.
   */
  changesOf(reference: string, signal?: AbortSignal): Promise<ProviderChange[] | undefined>;
  /**
   * Removes a reusable token the account issued for a saved card (an approval's `providerToken`), so it can no longer
   * be charged there: Stripe detaches the PaymentMethod, Adyen deletes the stored payment method, Braintree deletes
   * it from its vault. ok also when the provider no longer holds it (removed before, by us or by the merchant).
   */
  removeToken(token: string): Promise<OperationResult>;
}

/** A provider's dispute actions for one connector account, each under our idempotency key. */
export interface DisputeDesk {
  /** Sends the merchant's evidence for the dispute (`disputeReference`, the provider's id) and submits it. */
  submitEvidence(disputeReference: string, evidence: DisputeEvidence, idempotencyKey: string): Promise<OperationResult>;
  /** Accepts the dispute: the merchant does not contest it (the provider keeps the amount debited). */
  accept(disputeReference: string, idempotencyKey: string): Promise<OperationResult>;
}

/** The dispute states of docs/api.md "Disputes", which each provider's own states are mapped to. */
export type DisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost' | 'accepted';

/**
 * Why the cardholder disputes (Stripe's reasons; other providers' codes are mapped to the nearest, else `general`).
 */
export const DISPUTE_REASONS = [
  'fraudulent',
  'duplicate',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'credit_not_processed',
  'unrecognized',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

/** The merchant's text evidence for a dispute (a subset of Stripe's evidence fields, every one optional). */
export const DISPUTE_EVIDENCE_FIELDS = [
  'product_description',
  'customer_name',
  'customer_email_address',
  'billing_address',
  'shipping_address',
  'shipping_tracking_number',
  'service_date',
  'refund_policy_disclosure',
  'cancellation_rebuttal',
  'duplicate_charge_explanation',
  'uncategorized_text',
] as const;
export type DisputeEvidence = Partial<Record<(typeof DISPUTE_EVIDENCE_FIELDS)[number], string>>;

/**
 * A change a provider reports about one of our payments, in our words: what an inbound notification says (and what
 * `changesOf` answers). `paymentReference` is the provider's id of the authorization (PaymentIntent `pi_…`, Adyen
 * pspReference, Braintree transaction id); amounts are in our minor units.
 */
export type ProviderChange =
  | {
      object: 'capture' | 'cancellation';
      status: 'succeeded' | 'failed';
      paymentReference: string;
      reason?: string;
    }
  | {
      object: 'refund';
      status: 'pending' | 'succeeded' | 'failed';
      paymentReference: string;
      /** the provider's id of the refund (`re_…`, the refund's pspReference, the credit transaction's id) */
      refundReference: string;
      /** our refund id (`ref_…`), when the provider echoes the tag we gave it */
      refundId?: string;
      amount: number;
      currency: string;
      /** the provider's words on a failure */
      reason?: string;
    }
  | {
      object: 'dispute';
      status: DisputeStatus;
      paymentReference: string;
      /** the provider's id of the dispute (`dp_…`, the dispute's pspReference, Braintree's dispute id) */
      disputeReference: string;
      amount: number;
      currency: string;
      reason: DisputeReason;
      /** ISO 8601, when the provider says */
      evidenceDueBy: string | null;
    };

/** One notification of an inbound webhook: the provider's event id (duplicates share it) and what it reports. */
export interface InboundNotification {
  eventId: string;
  /** when the provider says it happened (ISO 8601) */
  occurredAt: string;
  /** null: an object or event type we do not follow (acknowledged and ignored) */
  change: ProviderChange | null;
  /** the provider's card updater changed a stored card (Stripe `payment_method.automatically_updated`) */
  cardUpdate?: ProviderCardUpdate;
  /** the provider published a payout's report (its name; Adyen REPORT_AVAILABLE): the account is reconciled */
  payoutReport?: string;
}

/** A stored card the provider's updater changed: our `pm_` it was tagged with, the token it is, what changed. */
export interface ProviderCardUpdate {
  paymentMethodId: string;
  /** the token as the connector issued it (`providerToken`) */
  token: string;
  exp_month: number;
  exp_year: number;
  last4?: string;
  brand?: string;
}

/** The inbound webhook request as it arrived: raw body (signatures are over its exact bytes) and lower-cased headers. */
export interface InboundWebhook {
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
}

/**
 * A verified webhook: its notifications, and the answer the provider expects (Adyen: `[accepted]`). Not verified:
 * why (a missing or forged signature, a secret the connector was not given); the request then changes nothing.
 */
export type WebhookVerification =
  { ok: true; notifications: InboundNotification[]; acknowledgement: { contentType: string; body: string } } | { ok: false; reason: string };

/** A provider's price for a card payment: `percent` of the amount plus `fixed` minor units. */
export interface FeeSchedule {
  percent: number;
  fixed: number;
}

export type Mode = 'test' | 'live';

/**
 * How a provider's raw answer is classed (docs/api.md "Provider answers"): `hard` is the card's final answer (no failover),
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

/**
 * What follows a payment at a provider: its notifications and its disputes (`shared/providers/<name>/follow-up.ts`).
 * A part apart from the connector, so a function that only pays never loads what these need (Braintree's SDK,
 * Adyen's HMAC validator and a PDF renderer for its defense documents).
 */
export interface ProviderFollowUp<Credentials extends object = Record<string, unknown>> {
  /**
   * Verifies an inbound webhook with the provider's own scheme through its SDK (Stripe `Stripe-Signature` with its
   * tolerance, Adyen's HMAC on every notification item, Braintree `bt_signature` + `bt_payload`) and reads it.
   */
  parseWebhook(credentials: Credentials, request: InboundWebhook): Promise<WebhookVerification>;
  disputeDesk(credentials: Credentials, account: ConnectorAccountRef): DisputeDesk;
}

/** What a payout line moved money for: a payment's charge, a refund, a dispute, a provider's fee, anything else. */
export type PayoutLineType = 'charge' | 'refund' | 'dispute' | 'fee' | 'adjustment';

/**
 * One line of a provider's payout, in our words: amounts in our minor units (negative: taken from the payout), the
 * currency upper case. `source` is the provider's id of what moved the money (Stripe `ch_…`, `re_…`, `dp_…`).
 */
export interface PayoutLine {
  type: PayoutLineType;
  source: string;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  /** when the provider made the movement (ISO 8601) */
  created: string;
  /** the provider's id of the payment the line belongs to (Stripe's PaymentIntent), when it names one */
  paymentReference?: string;
  /** our refund id, when the provider echoes the tag we gave the refund */
  refundId?: string;
}

/** A payout a provider made to the merchant's bank, and its lines. */
export interface ProviderPayout {
  /** the provider's id of the payout (Stripe `po_…`) */
  reference: string;
  currency: string;
  /** what it paid (minor units) */
  amount: number;
  /** ISO 8601 */
  created: string;
  /** YYYY-MM-DD */
  arrivalDate: string;
  /** `paid`: arrived; `pending`: on its way */
  status: 'paid' | 'pending';
  lines: PayoutLine[];
}

/** Where a run starts reading: after `cursor` (what the previous run's read returned), else from `connectedAt`. */
export interface PayoutsFrom {
  cursor: string | null;
  /** when the connector account was connected (ISO 8601): payouts before it are not this service's to reconcile */
  connectedAt: string;
  /** the account's mode: which of the provider's environments holds its payouts */
  mode: Mode;
}

/**
 * A provider's payouts (`shared/providers/<name>/payouts.ts`): the one method reconciliation calls on a connector
 * account, loaded only when a function reconciles. `cursor` is the provider's own place to read on from (Stripe:
 * the newest payout's creation time; an Adyen settlement batch number; a Braintree settlement date).
 */
export interface ProviderPayouts<Credentials extends object = Record<string, unknown>> {
  /**
   * The account's payouts from `from`, oldest first, each with every line, and the cursor to read on from next time;
   * undefined when the provider could not be read whole. A payout may come again (reading is idempotent per payout).
   */
  payoutsSince(
    credentials: Credentials,
    from: PayoutsFrom,
    signal?: AbortSignal,
  ): Promise<{ payouts: ProviderPayout[]; cursor: string | null } | undefined>;
}

/**
 * One provider's plugin: the same parts in every `shared/providers/<name>/`, each loaded on first use, so a cold start
 * parses no provider's code (nor its SDK) before a call needs it.
 */
export interface ProviderPlugin {
  /** `index.ts`: its credentials, their check, and the connector */
  connection(): Promise<ProviderModule>;
  /** `follow-up.ts`: its inbound webhooks and dispute actions */
  followUp(): Promise<ProviderFollowUp>;
  /** `payouts.ts`: what reconciliation reads */
  payouts(): Promise<ProviderPayouts>;
}
