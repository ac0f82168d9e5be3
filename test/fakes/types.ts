/**
 * What every provider fake (`test/fakes/<name>/`) offers its tests and the local runtime. A fake is a small stateful
 * HTTP server speaking the provider's wire format for the calls our connector makes, checked against the provider's
 * published contract in `../shared/provider-contracts/`. It follows the sandbox's test-card table
 * (`TEST_CARDS` in shared/providers/sandbox.ts), answering each with the provider's own raw code.
 */

/** The calls a connector makes, as the fake names them. */
export type FakeOperation = 'verify' | 'authorize' | 'lookup' | 'capture' | 'void' | 'reverse' | 'refund';

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
  close(): Promise<void>;
}
