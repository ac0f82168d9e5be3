import type Stripe from 'stripe';
import { failedAuthorization } from '../failures.ts';
import type { AuthorizeResult, LookupResult } from '../types.ts';
import type { Sent } from './client.ts';
import { mapStripeFailure } from './errors.ts';
import { AUTHENTICATION_FAILURE, shopperActionOf, threeDSecureOf } from './three-d-secure.ts';

/**
 * Raw card data in `payment_method_data` (needs raw card data access on the account, so the SDK's types omit it), and
 * the network transaction id of a merchant-initiated charge, `payment_method_options.card.mit_exemption` (a gated
 * feature: neither the pinned SDK's types nor Stripe's fixtures have it).
 */
export type IntentParams = Stripe.PaymentIntentCreateParams & {
  payment_method_data?: { type: 'card'; card: { number: string; exp_month: number; exp_year: number; cvc?: string } };
  payment_method_options?: {
    card?: { mit_exemption?: { network_transaction_id: string }; request_three_d_secure?: 'any' | 'automatic' };
  };
};

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id);

/**
 * The token of a card kept at Stripe: its Customer and PaymentMethod, `cus_…|pm_…` (no card data). Empty when the
 * card was not kept (a PaymentMethod used without a Customer cannot be charged again).
 */
export function tokenOf(intent: Stripe.PaymentIntent): string {
  const customer = idOf(intent.customer);
  const method = idOf(intent.payment_method);
  return customer && method ? stripeTokenOf(customer, method) : '';
}

export const stripeTokenOf = (customer: string, paymentMethod: string): string => `${customer}|${paymentMethod}`;

export function parseToken(token: string): { customer: string; payment_method: string } | undefined {
  const [customer, method, ...rest] = token.split('|');
  return customer?.startsWith('cus_') && method?.startsWith('pm_') && rest.length === 0 ? { customer, payment_method: method } : undefined;
}

/** The card network's id of the PaymentIntent's charge, when `latest_charge` was expanded and the network gave one. */
export function networkIdOf(intent: Stripe.PaymentIntent): string | undefined {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : undefined;
  return charge?.payment_method_details?.card?.network_transaction_id ?? undefined;
}

/** What a PaymentIntent made under our key holds. */
export function foundIn(intent: Stripe.PaymentIntent): LookupResult {
  switch (intent.status) {
    case 'requires_capture':
    case 'succeeded': {
      const networkTransactionId = networkIdOf(intent);
      return { found: 'authorized', reference: intent.id, providerToken: tokenOf(intent), ...(networkTransactionId ? { networkTransactionId } : {}) };
    }
    case 'requires_action':
      // 3-D Secure asked for: no cardholder is present to complete it, so it is the card's answer.
      return { found: 'declined', declineCode: 'authentication_required' };
    case 'requires_payment_method': {
      const error = intent.last_payment_error;
      if (error?.code === AUTHENTICATION_FAILURE) return { found: 'declined', declineCode: 'authentication_required' };
      const mapped = error && mapStripeFailure({ type: error.type, code: error.code, declineCode: error.decline_code });
      return mapped?.class === 'hard' ? { found: 'declined', declineCode: mapped.declineCode } : { found: 'none' };
    }
    case 'canceled':
    case 'requires_confirmation':
      return { found: 'none' };
    default:
      return { found: 'unknown' };
  }
}

/**
 * An authorization's answer: the PaymentIntent Stripe made, or its error classed by the error map. A PaymentIntent
 * waiting for the shopper at a redirect (only when the request allowed it: `authentication`) asks for that action.
 */
export function authorizeAnswer(sent: Sent<Stripe.PaymentIntent>, latencyMs: number): AuthorizeResult {
  if (!sent.ok) return failedAuthorization(sent.failure, latencyMs);
  const action = sent.value.status === 'requires_action' ? shopperActionOf(sent.value) : undefined;
  if (action) return { outcome: 'requires_action', reference: sent.value.id, action, latencyMs };
  const found = foundIn(sent.value);
  if (found.found === 'authorized') {
    const { reference, providerToken, networkTransactionId } = found;
    const threeDSecure = threeDSecureOf(sent.value);
    return {
      outcome: 'approved',
      reference,
      providerToken,
      ...(networkTransactionId ? { networkTransactionId } : {}),
      ...(threeDSecure ? { threeDSecure } : {}),
      latencyMs,
    };
  }
  if (found.found === 'declined') {
    // A decline after 3-D Secure (passed, then the issuer declined): the failed charge tells how it authenticated.
    const threeDSecure = threeDSecureOf(sent.value);
    return { outcome: 'declined', declineCode: found.declineCode, ...(threeDSecure ? { threeDSecure } : {}), latencyMs };
  }
  if (found.found === 'none') return { outcome: 'soft_failure', reason: 'processing_error', latencyMs };
  return { outcome: 'unknown', latencyMs };
}

/** A refusal made here, before anything is sent (an amount Stripe cannot take, a token that is not ours). */
export const notSent = (why: string): Sent<never> => ({
  ok: false,
  failure: { declineCode: 'processing_error', class: 'soft' },
  error: new Error(why),
});

/** A Stripe error about a PaymentIntent that is already canceled (a void or reversal asked twice). */
export const alreadyCanceled = (error: unknown) =>
  (error as { payment_intent?: { status?: string } } | undefined)?.payment_intent?.status === 'canceled';
