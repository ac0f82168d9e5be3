/**
 * What every provider fake (`infra/local/fakes/<name>/`) offers its tests and the local runtime. A fake is a small stateful
 * HTTP server speaking the provider's wire format for the calls our connector makes, checked against the provider's
 * published contract in `infra/local/fakes/contracts/`. It follows the sandbox's test-card table
 * (`TEST_CARDS` in shared/providers/sandbox.ts), answering each with the provider's own raw code.
 */

/** The calls a connector makes, as the fake names them. */
export type FakeOperation =
  | 'verify'
  | 'authorize'
  | 'lookup'
  | 'capture'
  | 'void'
  | 'reverse'
  | 'refund'
  /** the reads `changesOf` makes (a PaymentIntent with its refunds, a transaction, a dispute list) */
  | 'status'
  | 'dispute_evidence'
  | 'dispute_accept'
  /** /payments/details after a 3-D Secure redirect, and its kind elsewhere */
  | 'complete_authentication'
  /** the reads of a reconciliation run: payouts and their lines (Stripe's balance transactions, Adyen's report) */
  | 'payouts'
  /** a saved card's token removed (Stripe's PaymentMethod detach, Adyen's stored payment method delete, Braintree's vault delete) */
  | 'remove_token';

export type FakeFault =
  /** answers as the provider does for a declined card, with this raw code of the provider's */
  | { kind: 'decline'; code: string }
  /** answers this HTTP status (500, 503, 429…) without carrying the call out */
  | { kind: 'status'; status: number }
  /** carries the call out and answers after `ms` */
  | { kind: 'slow'; ms: number }
  /** carries the call out, then destroys the socket without answering */
  | { kind: 'accept_then_drop' };

export interface FakeRequest {
  operation: FakeOperation;
  method: string;
  path: string;
  /** the idempotency key the call carried (Stripe/Adyen `Idempotency-Key`, Braintree `orderId`), if any */
  idempotencyKey?: string;
  body: unknown;
}

/** An authorization the fake holds, and the money moved on it. */
export interface FakeHold {
  reference: string;
  idempotencyKey?: string;
  amount: number;
  currency: string;
  state: 'authorized' | 'captured' | 'voided';
  captured: number;
  refunded: number;
}

/** A notification the fake signed, the provider's way, for the webhook endpoint registered with it. */
export interface FakeNotification {
  /** the provider's event id (Stripe `evt_…`, Adyen's eventCode + pspReference + success, Braintree's payload digest) */
  eventId: string;
  /** what it reports, in the provider's words: `charge.dispute.created`, `REFUND`, `dispute_opened`, … */
  type: string;
  /** the exact request: POST to `url` with these headers and raw body */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** the endpoint's HTTP status on the last delivery; undefined while held or not yet delivered */
  status?: number;
}

/**
 * The fake's notification sender, like the provider's dashboard setting plus its delivery queue. A registered
 * endpoint gets a signed notification for every capture, cancellation, refund (and its settlement: succeeded or
 * failed) and dispute change, sent right after the change unless `hold` is on. A delivery answered non-2xx (or not
 * at all) is kept and sent again by `flush`.
 */
export interface FakeNotifications {
  /**
   * Points notifications at `url` (the connector's webhook_url), signed with `secret` (Stripe `whsec_…`, Adyen hex
   * HMAC key; ignored by Braintree, which signs with the API keys). Omitted: the fake's default secret, the one its
   * FAKE_CREDENTIALS carry. Over HTTP: `POST /_fake/webhooks {url, secret?}`.
   */
  register(url: string, secret?: string): void;
  /** true: notifications are made and kept, not sent (a test then sends `all()` itself, in any order) */
  hold(on: boolean): void;
  /** sends every notification not yet delivered with a 2xx (held ones too), oldest first, and waits for the answers */
  flush(): Promise<void>;
  /** resolves once every notification sent so far has been answered */
  idle(): Promise<void>;
  /** every notification made, oldest first */
  all(): FakeNotification[];
}

/** A dispute the fake holds, opened on one of its payments, with what the merchant sent it. */
export interface FakeDispute {
  id: string;
  /** the disputed payment's reference (PaymentIntent id, pspReference, transaction id) */
  paymentReference: string;
  amount: number;
  currency: string;
  /** the provider's status, in its own words */
  status: string;
  /** the text evidence received through the provider's API, by our field names */
  evidence: Record<string, string>;
  accepted: boolean;
}

export interface FakeServer {
  /** the origin to point the connector at, e.g. `http://127.0.0.1:12111` */
  readonly url: string;
  /** every call received, oldest first (with its idempotency key) */
  readonly requests: FakeRequest[];
  /** the next `times` (default 1) calls of `operation` meet `fault` */
  inject(operation: FakeOperation, fault: FakeFault, times?: number): void;
  clearFaults(): void;
  /** every authorization the fake ever made, with its current state */
  holds(): FakeHold[];
  notifications: FakeNotifications;
  /**
   * Opens a dispute on a captured payment as the card network would (over HTTP: `POST /_fake/disputes
   * {reference, reason?}` → `{id}`), with the provider's notification. `reason` in our vocabulary (DisputeReason).
   */
  openDispute(paymentReference: string, reason?: string): string;
  /** The card network decides: the dispute is won or lost (`POST /_fake/disputes/:id/close {outcome}`), notified. */
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): void;
  /** A refund fails at settlement after it was accepted (`POST /_fake/refunds/:id/fail`), notified. */
  failRefund(refundReference: string): void;
  disputes(): FakeDispute[];
  close(): Promise<void>;
}
