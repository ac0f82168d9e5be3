import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FakeHold } from '../types.ts';

/**
 * Stripe's objects as its own mock server answers them: every object the fake returns starts as a copy of the
 * resource's example in `infra/local/fakes/contracts/stripe-fixtures3.json` and only overrides fields the fake
 * gives meaning to. Shapes are never invented here.
 */
const FIXTURES_PATH = new URL('../contracts/stripe-fixtures3.json', import.meta.url);
const fixtures = (JSON.parse(readFileSync(FIXTURES_PATH, 'utf8')) as { resources: Record<string, Record<string, unknown>> }).resources;

export type StripeObject = Record<string, unknown>;

/** A fresh copy of Stripe's example `resource`, with `fields` overriding its values (unknown fields are refused). */
export function fixture(
  resource:
    'payment_intent' | 'payment_method' | 'refund' | 'customer' | 'balance' | 'charge' | 'dispute' | 'event' | 'payout' | 'balance_transaction',
  fields: StripeObject,
): StripeObject {
  const example = fixtures[resource];
  if (!example) throw new Error(`stripe-fixtures3.json has no ${resource}`);
  const extra = Object.keys(fields).filter((key) => !(key in example) && !ADDED_SINCE_FIXTURES.has(`${resource}.${key}`));
  if (extra.length) throw new Error(`${resource} has no field ${extra.join(', ')} in Stripe's fixtures`);
  return { ...structuredClone(example), ...fields };
}

/**
 * Fields the pinned SDK's types (API 2026-10-28.endive) have that the fixtures' examples lack: required ones the
 * fixtures (2026-08-21) predate, and optional ones an example omits (a refund's `failure_reason`, set once it fails).
 */
const ADDED_SINCE_FIXTURES = new Set(['payment_intent.allowed_payment_method_types', 'refund.failure_reason']);

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

/** Stripe's list envelope (`GET /v1/payment_intents`, `GET /v1/customers`, `GET /v1/refunds`, `GET /v1/disputes`). */
export const list = (url: string, data: StripeObject[], hasMore: boolean) => ({ object: 'list', data, has_more: hasMore, url });

/** Stripe's search envelope (`GET /v1/payment_intents/search`). */
export const searchResult = (url: string, data: StripeObject[], hasMore: boolean) => ({
  object: 'search_result',
  data,
  has_more: hasMore,
  next_page: null,
  url,
});

export interface StripeErrorBody {
  type: 'card_error' | 'invalid_request_error' | 'api_error' | 'idempotency_error';
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  payment_intent?: StripeObject;
  payment_method?: StripeObject;
}

/** Stripe's error body, `{"error": {type, code, decline_code, message, …}}` with its doc_url. */
export const errorBody = (error: StripeErrorBody) => ({
  error: { ...error, ...(error.code ? { doc_url: `https://docs.stripe.com/error-codes/${error.code.replaceAll('_', '-')}` } : {}) },
});

/**
 * How Stripe reports each decline of the test-card table: most are `card_declined` with a `decline_code`; a few are
 * their own error code with no decline code (Stripe's testing docs, "Declined payments").
 */
const CODE_ONLY: Record<string, string> = {
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  incorrect_number: 'Your card number is incorrect.',
  processing_error: 'An error occurred while processing your card. Try again in a little bit.',
};
const DECLINE_MESSAGES: Record<string, string> = {
  insufficient_funds: 'Your card has insufficient funds.',
  lost_card: 'Your card has been declined.',
  stolen_card: 'Your card has been declined.',
};

export function cardError(declined: string): StripeErrorBody {
  if (CODE_ONLY[declined]) return { type: 'card_error', code: declined, message: CODE_ONLY[declined] };
  // 3-D Secure needed and nobody to complete it (error_on_requires_action, off-session): its own code and decline code.
  if (declined === 'authentication_required')
    return {
      type: 'card_error',
      code: declined,
      decline_code: declined,
      message: 'Your card was declined. This transaction requires authentication.',
    };
  return { type: 'card_error', code: 'card_declined', decline_code: declined, message: DECLINE_MESSAGES[declined] ?? 'Your card was declined.' };
}

/** The error body an injected HTTP status answers with, as Stripe sends it for that status. */
export function statusError(status: number): StripeErrorBody {
  if (status === 429) return { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' };
  if (status === 409)
    return {
      type: 'invalid_request_error',
      code: 'idempotency_key_in_use',
      message: 'There is currently another in-progress request using this Idempotent Key.',
    };
  if (status >= 500) return { type: 'api_error', message: 'Something went wrong on Stripe\u2019s end.' };
  return { type: 'invalid_request_error', message: `The request was refused (HTTP ${status}).` };
}

/** Sends the account's event `type` about `object` to its webhook endpoint. */
export type Notify = (type: string, object: StripeObject) => void;

/** What refunds and disputes read of the payments they belong to. */
export interface Payments {
  intent(id: string): StripeObject | undefined;
  hold(id: string): FakeHold | undefined;
  /** the PaymentIntent's Charge as Stripe shows it now (amounts captured and refunded, disputed) */
  charge(intentId: string): StripeObject;
  /** whether a dispute of the PaymentIntent is still open */
  disputedNow(intentId: string): boolean;
}
