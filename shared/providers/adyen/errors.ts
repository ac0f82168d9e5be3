/**
 * Adyen's answers mapped to our decline codes (Stripe's vocabulary) and failure classes (docs/api.md "Provider answers"):
 * `hard` is the card's final answer (no failover), `soft` a processing error and `outage` an unreachable or
 * overloaded Adyen (both fail over), `unknown` an answer that may hide an authorization (resolved before anything
 * else is tried). Sources: Adyen's "Refusal reasons", "Result codes", "Error codes" and "Response handling" pages,
 * and the Checkout v72 contract (`PaymentResponse.resultCode`, `ServiceError`).
 */
import type { FailureClass, MappedFailure } from '../types.ts';

/** A request that got no answer is classed the same at every provider. */
export { mapTransportError } from '../transport.ts';

type Row = readonly [adyen: string, declineCode: string, failureClass: FailureClass];
const rows = (entries: ReadonlyArray<readonly [string, ...Row]>): ReadonlyMap<string, Row> => new Map(entries.map(([key, ...row]) => [key, row]));
const mapped = ([, declineCode, failureClass]: Row): MappedFailure => ({ declineCode, class: failureClass });

/** `resultCode: Refused`: Adyen's `refusalReasonCode` (its text in the second column) → decline code and class. */
export const REFUSAL_REASONS = rows([
  ['2', 'Refused', 'generic_decline', 'hard'],
  ['3', 'Referral', 'call_issuer', 'hard'],
  ['4', 'Acquirer Error', 'processing_error', 'soft'],
  ['5', 'Blocked Card', 'pickup_card', 'hard'], // refined by the raw acquirer response: see BLOCKED_CARD_RAW
  ['6', 'Expired Card', 'expired_card', 'hard'],
  ['7', 'Invalid Amount', 'invalid_amount', 'hard'],
  ['8', 'Invalid Card Number', 'incorrect_number', 'hard'],
  ['9', 'Issuer Unavailable', 'issuer_not_available', 'soft'],
  ['10', 'Not supported', 'card_not_supported', 'hard'],
  ['11', '3D Not Authenticated', 'authentication_required', 'hard'],
  ['12', 'Not enough balance', 'insufficient_funds', 'hard'],
  ['14', 'Acquirer Fraud', 'fraudulent', 'hard'],
  ['15', 'Cancelled', 'generic_decline', 'hard'],
  ['16', 'Shopper Cancelled', 'generic_decline', 'hard'],
  ['17', 'Invalid Pin', 'incorrect_pin', 'hard'],
  ['18', 'Pin tries exceeded', 'pin_try_exceeded', 'hard'],
  ['19', 'Pin validation not possible', 'processing_error', 'soft'],
  ['20', 'FRAUD', 'fraudulent', 'hard'],
  ['21', 'Not Submitted', 'processing_error', 'soft'],
  ['22', 'FRAUD-CANCELLED', 'fraudulent', 'hard'],
  ['23', 'Transaction Not Permitted', 'transaction_not_allowed', 'hard'],
  ['24', 'CVC Declined', 'incorrect_cvc', 'hard'],
  ['25', 'Restricted Card', 'restricted_card', 'hard'],
  ['26', 'Revocation Of Auth', 'revocation_of_authorization', 'hard'],
  ['27', 'Declined Non Generic', 'do_not_honor', 'hard'],
  ['28', 'Withdrawal amount exceeded', 'card_velocity_exceeded', 'hard'],
  ['29', 'Withdrawal count exceeded', 'withdrawal_count_limit_exceeded', 'hard'],
  ['31', 'Issuer Suspected Fraud', 'fraudulent', 'hard'],
  ['32', 'AVS Declined', 'incorrect_zip', 'hard'],
  ['33', 'Card requires online pin', 'online_or_offline_pin_required', 'hard'],
  ['34', 'No checking account available on Card', 'invalid_account', 'hard'],
  ['35', 'No savings account available on Card', 'invalid_account', 'hard'],
  ['36', 'Mobile pin required', 'authentication_required', 'hard'],
  ['37', 'Contactless fallback', 'generic_decline', 'hard'],
  ['38', 'Authentication required', 'authentication_required', 'hard'],
  ['39', 'RReq not received from DS', 'authentication_required', 'hard'],
  ['42', '3DS Authentication Error', 'authentication_required', 'hard'],
  ['46', 'Transaction blocked by Adyen to prevent excessive retry fees', 'do_not_try_again', 'hard'],
]);
/** A refusal code this table does not know is still the card's answer. */
const UNLISTED_REFUSAL: Row = ['(unlisted refusal)', 'generic_decline', 'hard'];

/**
 * Adyen folds lost and stolen cards into `5 Blocked Card`; the raw acquirer response (`additionalData.refusalReasonRaw`,
 * e.g. `41 : Lost card`, when enabled in the Customer Area) tells them apart by its ISO 8583 response code.
 */
export const BLOCKED_CARD_RAW = rows([
  ['41', 'Lost card, pick up', 'lost_card', 'hard'],
  ['43', 'Stolen card, pick up', 'stolen_card', 'hard'],
]);

/**
 * `PaymentResponse.resultCode` → what it means for an authorization, other than `Authorised` (approved: funds held)
 * and `Refused` (the card's answer: REFUSAL_REASONS).
 */
export const RESULT_CODES = rows([
  ['Error', 'an error while processing: nothing authorized', 'processing_error', 'soft'],
  ['Cancelled', 'cancelled before processing completed', 'generic_decline', 'hard'],
  // A shopper action we do not perform: any, without `authentication` (`attemptAuthentication: never`), else the
  // native 3DS2 ones (we ask for the redirect flow; a redirect is `requires_action`, connector.ts). Never authorized.
  ['RedirectShopper', 'the shopper must be redirected (3D Secure)', 'authentication_required', 'hard'],
  ['IdentifyShopper', '3D Secure 2 device fingerprint required', 'authentication_required', 'hard'],
  ['ChallengeShopper', '3D Secure 2 challenge required', 'authentication_required', 'hard'],
  ['PresentToShopper', 'a voucher to show the shopper', 'card_not_supported', 'hard'],
  ['AuthenticationFinished', 'authentication only: nothing authorized', 'processing_error', 'soft'],
  ['AuthenticationNotRequired', 'authentication only: nothing authorized', 'processing_error', 'soft'],
  // Not final (Pending, Received) or holding something we did not ask for (a partial amount): resolved like a timeout,
  // so whatever Adyen ends up holding under the reference is found or reversed, never left behind.
  ['Pending', 'final status not known yet', 'processing_error', 'unknown'],
  ['Received', 'received, to be processed', 'processing_error', 'unknown'],
  ['PartiallyAuthorised', 'authorized for part of the amount', 'processing_error', 'unknown'],
  ['Success', 'not a card result', 'processing_error', 'unknown'],
]);

/** A non-2xx answer's `ServiceError.errorCode` (Adyen's "Error codes"), where it says more than the HTTP status. */
export const ERROR_CODES = rows([
  ['101', 'Invalid card number', 'incorrect_number', 'hard'],
  ['102', 'Unable to determine variant', 'incorrect_number', 'hard'],
  ['103', 'CVC is not the right length', 'invalid_cvc', 'hard'],
  ['129', 'Expiry Date Invalid', 'invalid_expiry_year', 'hard'],
  // Idempotency: a request under this key is still being processed; its outcome is not known yet.
  ['704', 'Request already processed or in progress', 'processing_error', 'unknown'],
  // A stored card (our provider token) that Adyen no longer has: no retry will find it.
  ['800', 'Contract not found', 'invalid_account', 'hard'],
  ['803', 'PaymentDetail not found', 'invalid_account', 'hard'],
  ['805', 'RecurringDetailReference not available for provided recurring-contract', 'invalid_account', 'hard'],
]);

/** A non-2xx answer by HTTP status, when its errorCode is not in ERROR_CODES. */
export const HTTP_STATUSES = rows([
  ['401', 'Unauthorized: the API key was refused', 'processing_error', 'soft'],
  ['403', 'Forbidden: the key may not act for this merchant account', 'processing_error', 'soft'],
  ['422', 'Unprocessable: the request was refused as invalid', 'processing_error', 'soft'],
  ['429', 'Too many requests', 'processing_error', 'outage'],
  ['500', 'Internal server error', 'processing_error', 'outage'],
  // A gateway between us and Adyen gave up (bad answer, or none in time): Adyen may have carried the request out.
  ['502', 'Bad gateway', 'processing_error', 'unknown'],
  ['503', 'Service unavailable', 'processing_error', 'outage'],
  ['504', 'Gateway timeout', 'processing_error', 'unknown'],
]);
const OTHER_CLIENT_ERROR: Row = ['4xx', 'processing_error', 'soft'];
const OTHER_SERVER_ERROR: Row = ['5xx', 'processing_error', 'outage'];

/** What an authorization's `resultCode` means: `approved`, or the failure it is. */
export function mapPaymentResult(answer: { resultCode?: string; refusalReasonCode?: string; refusalReasonRaw?: string }): 'approved' | MappedFailure {
  const { resultCode, refusalReasonCode, refusalReasonRaw } = answer;
  if (resultCode === 'Authorised') return 'approved';
  if (resultCode === 'Refused') {
    const raw = refusalReasonRaw?.match(/^\s*([0-9A-Z]{2})\s*:/)?.[1];
    const refined = refusalReasonCode === '5' && raw ? BLOCKED_CARD_RAW.get(raw) : undefined;
    return mapped(refined ?? REFUSAL_REASONS.get(refusalReasonCode ?? '') ?? UNLISTED_REFUSAL);
  }
  const row = RESULT_CODES.get(resultCode ?? '');
  // A resultCode the contract does not list: the answer says nothing we can trust about what is held.
  return row ? mapped(row) : { declineCode: 'processing_error', class: 'unknown' };
}

/** A non-2xx answer: by Adyen's errorCode where the table names it, else by HTTP status. */
export function mapErrorAnswer(status: number, errorCode?: string): MappedFailure {
  const row = ERROR_CODES.get(errorCode ?? '') ?? HTTP_STATUSES.get(String(status)) ?? (status >= 500 ? OTHER_SERVER_ERROR : OTHER_CLIENT_ERROR);
  return mapped(row);
}
