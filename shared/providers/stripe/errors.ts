import Stripe from 'stripe';
import { mapTransportError } from '../transport.ts';
import type { FailureClass, MappedFailure } from '../types.ts';

/** What Stripe answered when it did not answer with the object: its error body's fields and the HTTP status. */
export interface StripeFailure {
  status?: number;
  type?: string;
  code?: string;
  declineCode?: string;
}

export interface Row {
  status?: number | '5xx';
  type?: string;
  code?: string;
  decline?: string;
  class: FailureClass;
}

/**
 * Stripe's answers → our class (docs/api.md "Provider answers"), read top-down: the first row whose given fields all match
 * wins. The decline code we record is Stripe's own: `decline_code`, else `code` (`card_declined` alone is
 * `generic_decline`); a failure that is not the card's answer records `processing_error`.
 */
export const ERROR_MAP: readonly Row[] = [
  // The issuer or network asks to try again: nothing is held, another provider may approve.
  { type: 'card_error', decline: 'try_again_later', class: 'soft' },
  { type: 'card_error', decline: 'issuer_not_available', class: 'soft' },
  { type: 'card_error', decline: 'processing_error', class: 'soft' },
  { type: 'card_error', decline: 'reenter_transaction', class: 'soft' },
  { type: 'card_error', code: 'processing_error', class: 'soft' },
  // Every other card error is the card's final answer: generic_decline, insufficient_funds, lost_card, stolen_card,
  // fraudulent, expired_card, incorrect_cvc, incorrect_number, authentication_required, …
  { type: 'card_error', class: 'hard' },
  // A request under the same key is still running (409): it may yet authorize.
  { code: 'idempotency_key_in_use', class: 'unknown' },
  // The key was used with other parameters (a reversal closed it): this request did nothing.
  { type: 'idempotency_error', class: 'soft' },
  // Stripe is limiting or busy: the request was not carried out.
  { status: 429, class: 'outage' },
  { code: 'rate_limit', class: 'outage' },
  { code: 'lock_timeout', class: 'outage' },
  { type: 'api_error', code: 'processing_error', class: 'soft' },
  // Stripe: "treat the result of a 500 as indeterminate" (it may have done the work); a gateway timeout likewise.
  { status: 500, class: 'unknown' },
  { status: 504, class: 'unknown' },
  // 502, 503: refused at Stripe's edge before the API began.
  { status: '5xx', class: 'outage' },
  // The connector's key is revoked or lacks permission: this account cannot take the payment now.
  { status: 401, class: 'outage' },
  { status: 403, class: 'outage' },
  // Our request was refused (bad parameter, object in another state, missing): nothing was done.
  { type: 'invalid_request_error', class: 'soft' },
  { status: 400, class: 'soft' },
  { status: 404, class: 'soft' },
];

export const UNKNOWN: MappedFailure = { declineCode: 'processing_error', class: 'unknown' };

const matches = (row: Row, f: StripeFailure) =>
  (row.status === undefined || (row.status === '5xx' ? (f.status ?? 0) >= 500 : row.status === f.status)) &&
  (row.type === undefined || row.type === f.type) &&
  (row.code === undefined || row.code === f.code) &&
  (row.decline === undefined || row.decline === f.declineCode);

/** The first row of the map that `failure` matches. */
export const ruleFor = (failure: StripeFailure): Row | undefined => ERROR_MAP.find((r) => matches(r, failure));

/** The class of one Stripe error answer (anything unlisted is unknown: never assumed harmless). */
export function mapStripeFailure(failure: StripeFailure): MappedFailure {
  const row = ruleFor(failure);
  if (!row) return UNKNOWN;
  const cardAnswer = failure.type === 'card_error' && (row.class === 'hard' || row.class === 'soft');
  const stripeCode = failure.declineCode || (failure.code === 'card_declined' ? undefined : failure.code);
  return { declineCode: cardAnswer ? (stripeCode ?? 'generic_decline') : 'processing_error', class: row.class };
}

/**
 * Whatever a Stripe call threw. A connection error is an outage only when nothing was sent; a timeout, a reset or an
 * answer cut off may hide a request Stripe carried out, so it is unknown. Anything else (our abort) is unknown too.
 */
export function classify(error: unknown): MappedFailure {
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return mapTransportError(error.detail);
  }
  if (error instanceof Stripe.errors.StripeError) {
    return mapStripeFailure({ status: error.statusCode, type: error.rawType, code: error.code, declineCode: error.decline_code });
  }
  return UNKNOWN;
}

/**
 * Stripe's clear "no" to a capture, void, refund or dispute action, in its own words: a 400 `invalid_request_error`
 * (the object is in another state, the amount is more than remains, the charge is already refunded, the dispute is
 * closed). Nothing was done and the same request would be answered the same. Undefined for anything else.
 */
export function refusalOf(error: unknown): string | undefined {
  if (!(error instanceof Stripe.errors.StripeError) || error.statusCode !== 400 || error.rawType !== 'invalid_request_error') return undefined;
  const failure = { status: error.statusCode, type: error.rawType, code: error.code };
  if (ruleFor(failure)?.type !== 'invalid_request_error') return undefined;
  return error.message || error.code || 'refused by Stripe';
}
