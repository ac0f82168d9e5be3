import type { MappedFailure } from '../types.ts';

/**
 * Braintree's error map (docs/api.md "Provider answers"): its raw answers → our `decline_code` (Stripe's vocabulary) and a class:
 * `hard` is the card's final answer (no failover), `soft` and `outage` fail over, `unknown` may have been carried out
 * (looked up by orderId first). A decline is a transaction PROCESSOR_DECLINED, GATEWAY_REJECTED or FAILED, whose newest
 * `statusHistory` event has the processor code (`legacyCode`) or rejection reason; the rest fails as a GraphQL error
 * (`extensions.errorClass`) or at the HTTP level.
 */

/** `fetch` failed without an HTTP answer: classed the same at every provider. */
export { mapTransportError } from '../transport.ts';

const hard = (declineCode: string): MappedFailure => ({ declineCode, class: 'hard' });
const soft = (declineCode = 'processing_error'): MappedFailure => ({ declineCode, class: 'soft' });
const outage: MappedFailure = { declineCode: 'processing_error', class: 'outage' };
const unknown: MappedFailure = { declineCode: 'processing_error', class: 'unknown' };

/**
 * Processor response codes (Braintree "Authorization responses"). 1000–1999 approve; 2000–2999 are the issuer's or
 * processor's decline (hard unless listed soft: merchant-account set-up problems another provider may not have);
 * 3000 is the processor network being down (soft: another provider may reach the issuer).
 */
export const PROCESSOR_RESPONSES: Readonly<Record<string, MappedFailure & { message: string }>> = {
  '2000': { message: 'Do Not Honor', ...hard('do_not_honor') },
  '2001': { message: 'Insufficient Funds', ...hard('insufficient_funds') },
  '2002': { message: 'Limit Exceeded', ...hard('card_velocity_exceeded') },
  '2003': { message: "Cardholder's Activity Limit Exceeded", ...hard('card_velocity_exceeded') },
  '2004': { message: 'Expired Card', ...hard('expired_card') },
  '2005': { message: 'Invalid Credit Card Number', ...hard('incorrect_number') },
  '2006': { message: 'Invalid Expiration Date', ...hard('invalid_expiry_year') },
  '2007': { message: 'No Account', ...hard('invalid_account') },
  '2008': { message: 'Card Account Length Error', ...hard('incorrect_number') },
  '2009': { message: 'No Such Issuer', ...hard('invalid_account') },
  '2010': { message: 'Card Issuer Declined CVV', ...hard('incorrect_cvc') },
  '2011': { message: 'Voice Authorization Required', ...hard('call_issuer') },
  '2012': { message: 'Processor Declined - Possible Lost Card', ...hard('lost_card') },
  '2013': { message: 'Processor Declined - Possible Stolen Card', ...hard('stolen_card') },
  '2014': { message: 'Processor Declined - Fraud Suspected', ...hard('fraudulent') },
  '2015': { message: 'Transaction Not Allowed', ...hard('transaction_not_allowed') },
  '2016': { message: 'Duplicate Transaction', ...hard('duplicate_transaction') },
  '2017': { message: 'Cardholder Stopped Billing', ...hard('stop_payment_order') },
  '2018': { message: 'Cardholder Stopped All Billing', ...hard('revocation_of_all_authorizations') },
  '2019': { message: 'Invalid Transaction', ...hard('transaction_not_allowed') },
  '2020': { message: 'Violation', ...hard('restricted_card') },
  '2021': { message: 'Security Violation', ...hard('security_violation') },
  '2022': { message: 'Declined - Updated Cardholder Available', ...hard('generic_decline') },
  '2023': { message: 'Processor Does Not Support This Feature', ...soft() },
  '2024': { message: 'Card Type Not Enabled', ...soft('card_not_supported') },
  '2025': { message: 'Set Up Error - Merchant', ...soft() },
  '2026': { message: 'Invalid Merchant ID', ...soft() },
  '2027': { message: 'Set Up Error - Amount', ...soft() },
  '2028': { message: 'Set Up Error - Hierarchy', ...soft() },
  '2029': { message: 'Set Up Error - Card', ...soft() },
  '2030': { message: 'Set Up Error - Terminal', ...soft() },
  '2031': { message: 'Encryption Error', ...soft() },
  '2032': { message: 'Surcharge Not Permitted', ...soft() },
  '2038': { message: 'Processor Declined', ...hard('generic_decline') },
  '2041': { message: 'Declined - Call For Approval', ...hard('call_issuer') },
  '2044': { message: 'Declined - Call Issuer', ...hard('call_issuer') },
  '2046': { message: 'Declined', ...hard('generic_decline') },
  '2047': { message: 'Call Issuer. Pick Up Card', ...hard('pickup_card') },
  '2048': { message: 'Invalid Amount', ...hard('invalid_amount') },
  '2053': { message: 'Card reported as lost or stolen', ...hard('lost_card') },
  '2057': { message: 'Issuer or Cardholder has put a restriction on the card', ...hard('restricted_card') },
  '2059': { message: 'Address Verification Failed', ...hard('incorrect_zip') },
  '2060': { message: 'Address Verification and Card Security Code Failed', ...hard('incorrect_cvc') },
  '2099': { message: 'Cardholder Authentication Required', ...hard('authentication_required') },
  '3000': { message: 'Processor Network Unavailable - Try Again', ...soft() },
};

/** Gateway rejections (the merchant's own Braintree rules, enum GatewayRejectionReason). */
export const GATEWAY_REJECTIONS: Readonly<Record<string, MappedFailure>> = {
  AVS: hard('incorrect_zip'),
  AVS_AND_CVV: hard('incorrect_cvc'),
  CVV: hard('incorrect_cvc'),
  DUPLICATE: hard('duplicate_transaction'),
  EXCESSIVE_RETRY: hard('card_velocity_exceeded'),
  FRAUD: hard('fraudulent'),
  RISK_THRESHOLD: hard('fraudulent'),
  PAYMENT_METHOD_BLOCKED: hard('merchant_blacklist'),
  THREE_D_SECURE: hard('authentication_required'),
  TOO_MANY_CONFIRMATION_ATTEMPTS: hard('generic_decline'),
  // Set-up problems of this merchant account: another provider may take the card.
  APPLICATION_INCOMPLETE: soft(),
  MANUAL_TRANSACTIONS_DISABLED: soft(),
  TOKEN_ISSUANCE: soft(),
  UNION_PAY_ENROLLMENT_REQUIRED: soft('card_not_supported'),
};

/**
 * GraphQL error classes (`errors[].extensions.errorClass`, as Braintree's own SDK reads them). VALIDATION without a
 * processor code is a request Braintree refused to carry out (our bug or bad input): nothing happened, so another
 * provider may be tried. INTERNAL is the one error that can come out of a mutation that was already carried out: it
 * is resolved by a look-up like a lost answer.
 */
export const GRAPHQL_ERROR_CLASSES: Readonly<Record<string, MappedFailure>> = {
  VALIDATION: soft(),
  NOT_FOUND: soft(),
  AUTHENTICATION: soft(),
  AUTHORIZATION: soft(),
  UNSUPPORTED_CLIENT: soft(),
  RESOURCE_LIMIT: outage,
  SERVICE_AVAILABILITY: outage,
  INTERNAL: unknown,
};

/**
 * Validation codes by which Braintree says it will not do an operation on a transaction or dispute in its present
 * state (asking again changes nothing): the connector answers these `refused`, with Braintree's message.
 */
export const REFUSAL_CODES: ReadonlySet<string> = new Set([
  '91504', // transaction can only be voided if authorized or submitted for settlement
  '91505', // cannot refund a credit
  '91506', // cannot refund a transaction unless it is settled
  '91507', // cannot submit for settlement unless authorized
  '91512', // transaction has already been fully refunded
  '91521', // refund amount is too large
  '91522', // settlement amount is too large
  '91538', // cannot refund with a suspended merchant account
  '95701', // evidence can only be added to an open dispute
  '95704', // only an open dispute can be accepted
  '95705', // only an open dispute can be finalized
]);

/** A processor response code; unlisted codes fall in their documented range. */
export function mapProcessorResponse(code: string | null | undefined): MappedFailure {
  const listed = code ? PROCESSOR_RESPONSES[code] : undefined;
  if (listed) return { declineCode: listed.declineCode, class: listed.class };
  const n = Number(code);
  if (n >= 2000 && n < 3000) return hard('generic_decline');
  return soft();
}

/** A gateway rejection reason, in the schema's spelling (FRAUD) or the SDKs' (fraud). */
export const mapGatewayRejection = (reason: string | null | undefined): MappedFailure =>
  GATEWAY_REJECTIONS[(reason ?? '').toUpperCase()] ?? hard('generic_decline');

/** A GraphQL error class; an error without one (or one we do not know) may hide anything: unknown. */
export const mapGraphQLErrorClass = (errorClass: string | null | undefined): MappedFailure => GRAPHQL_ERROR_CLASSES[errorClass ?? ''] ?? unknown;

/** An HTTP answer that carries no GraphQL result: 429 and 5xx were not carried out (outage); others are refusals. */
export function mapHttpStatus(status: number): MappedFailure {
  if (status === 429 || status >= 500) return outage;
  return soft();
}
