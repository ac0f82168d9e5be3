import { randomUUID } from 'node:crypto';
import { type Answer, badParam } from './answers.ts';
import { type Form, nested, text } from './form.ts';
import { fixture, type StripeObject } from './objects.ts';

/**
 * Whether a PaymentIntent create is off-session (merchant-initiated), or Stripe's refusal of its parameters:
 * `off_session`, `error_on_requires_action` and `return_url` only with `confirm=true` (the SDK's types say so), and
 * the fake's own rule that a `mit_exemption` (a gated field, absent from the SDK and the fixtures) names a network
 * transaction id and comes only with an off-session payment.
 */
export function merchantInitiation(form: Form): boolean | Answer {
  const confirmed = text(form, 'confirm') === 'true';
  const offSession = text(form, 'off_session') === 'true';
  for (const param of ['off_session', 'error_on_requires_action'])
    if (text(form, param) === 'true' && !confirmed) return badParam(param, `${param} can only be used with confirm=true.`);
  if (text(form, 'return_url') !== undefined && !confirmed) return badParam('return_url', 'return_url can only be used with confirm=true.');
  const card = nested(nested(form, 'payment_method_options'), 'card');
  const asked = text(card, 'request_three_d_secure');
  if (asked !== undefined && !['any', 'automatic', 'challenge'].includes(asked))
    return badParam('payment_method_options[card][request_three_d_secure]', `Invalid request_three_d_secure: ${asked}`);
  const exemption = card.mit_exemption;
  if (exemption === undefined) return offSession;
  const id = typeof exemption === 'object' && !Array.isArray(exemption) ? text(exemption, 'network_transaction_id') : undefined;
  const param = 'payment_method_options[card][mit_exemption]';
  if (!id || Object.keys(exemption).length !== 1) return badParam(param, 'mit_exemption takes one network_transaction_id.');
  if (!offSession) return badParam(param, 'mit_exemption applies to merchant-initiated (off_session) payments only.');
  return offSession;
}

/**
 * Stripe's 3-D Secure test cards (docs.stripe.com/testing#regulatory-cards): 3184 asks for authentication on every
 * charge, off-session ones too (declined `authentication_required`); 3220 challenges; 1629 challenges, then the
 * issuer declines the authenticated charge (`card_declined`); 3055 authenticates frictionless; the Amex card has no
 * 3-D Secure. Any other card is challenged only when the merchant asks (`request_three_d_secure` `any`/`challenge`).
 */
const THREE_D_SECURE_CARDS: Readonly<
  Record<string, { flow: 'challenge' | 'frictionless' | 'not_supported'; offSessionDecline?: true; thenDecline?: string }>
> = {
  '4000002760003184': { flow: 'challenge', offSessionDecline: true },
  '4000000000003220': { flow: 'challenge' },
  '4000008400001629': { flow: 'challenge', thenDecline: 'generic_decline' },
  '4000000000003055': { flow: 'frictionless' },
  '378282246310005': { flow: 'not_supported' },
};

/** What the issuer does with an authenticated (or unauthenticated) charge of `number`: its decline code, if any. */
export const declineAfterAuthentication = (number: string): string | undefined => THREE_D_SECURE_CARDS[number]?.thenDecline;

/**
 * 3-D Secure for a confirmation: `challenge` (the shopper must act), `decline` (it would need the shopper, who cannot
 * act: off-session, or `error_on_requires_action`), or go on with the charge's `three_d_secure` (null: none ran).
 */
export type AuthenticationStep = { kind: 'challenge' } | { kind: 'decline' } | { kind: 'charge'; threeDSecure: StripeObject | null };

export function authenticationStep(number: string, form: Form, offSession: boolean): AuthenticationStep {
  const card = THREE_D_SECURE_CARDS[number];
  if (offSession) return card?.offSessionDecline ? { kind: 'decline' } : { kind: 'charge', threeDSecure: null };
  const asked = text(nested(nested(form, 'payment_method_options'), 'card'), 'request_three_d_secure');
  const requested = asked === 'any' || asked === 'challenge';
  const flow = card?.flow ?? (requested ? 'challenge' : undefined);
  if (flow === 'frictionless') return { kind: 'charge', threeDSecure: threeDSecureRecord(number, 'frictionless') };
  // Stripe attempts 3-D Secure only when asked; a card without it is then charged unauthenticated, saying so.
  if (flow === 'not_supported') return { kind: 'charge', threeDSecure: requested ? threeDSecureRecord(number, 'not_supported') : null };
  if (flow === undefined) return { kind: 'charge', threeDSecure: null };
  return text(form, 'error_on_requires_action') === 'true' ? { kind: 'decline' } : { kind: 'challenge' };
}

/**
 * A charge's `payment_method_details.card.three_d_secure`, from Stripe's example: the cardholder authenticated
 * (`challenge` or `frictionless`, ECI 05, Mastercard 02) or 3-D Secure not supported by the card (no ECI).
 */
export function threeDSecureRecord(number: string, flow: 'challenge' | 'frictionless' | 'not_supported'): StripeObject {
  const example = (fixture('charge', {}).payment_method_details as { card: { three_d_secure: StripeObject } }).card.three_d_secure;
  const mastercard = /^(5[1-5]|2[2-7])/.test(number);
  if (flow === 'not_supported') return { ...example, result: 'not_supported', authentication_flow: null, version: null };
  return {
    ...example,
    authentication_flow: flow,
    electronic_commerce_indicator: mastercard ? '02' : '05',
    result: 'authenticated',
    result_reason: null,
    transaction_id: randomUUID(),
    version: '2.2.0',
  };
}

/** The PaymentIntent's `last_payment_error` once the shopper failed the challenge (Stripe's words). */
export const authenticationFailure = (method: StripeObject): StripeObject => ({
  type: 'card_error',
  code: 'payment_intent_authentication_failure',
  doc_url: 'https://docs.stripe.com/error-codes/payment-intent-authentication-failure',
  message:
    'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
  payment_method: method,
});
