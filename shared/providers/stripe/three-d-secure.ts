import type Stripe from 'stripe';
import type { ShopperAction, ThreeDSecureResult } from '../types.ts';

/** Stripe's `three_d_secure.result` in the words of docs/api.md "3-D Secure" (Stripe's enum, `Charge.PaymentMethodDetails.Card.ThreeDSecure`). */
const RESULTS: Record<string, ThreeDSecureResult['result']> = {
  authenticated: 'authenticated',
  attempt_acknowledged: 'attempted',
  exempted: 'exempted',
  failed: 'failed',
  // 3-D Secure could not run (Stripe or the issuer's server failed): no authentication took place.
  processing_error: 'failed',
  not_supported: 'not_supported',
  // Data shared with the issuer without authenticating the cardholder.
  data_share_only: 'not_supported',
};

/**
 * Stripe: a charge authenticated by the cardholder, or with the issuer's proof of an attempt (`attempt_acknowledged`),
 * moves fraud liability to the issuer; an exemption, a failure or no 3-D Secure does not.
 */
const SHIFTS_LIABILITY = new Set(['authenticated', 'attempt_acknowledged']);

/**
 * The 3-D Secure outcome on the PaymentIntent's charge (`latest_charge` expanded), or undefined when the charge ran
 * without 3-D Secure (Stripe leaves `three_d_secure` null, or its `result` null).
 */
export function threeDSecureOf(intent: Stripe.PaymentIntent): ThreeDSecureResult | undefined {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : undefined;
  const tds = charge?.payment_method_details?.card?.three_d_secure;
  if (!tds?.result) return undefined;
  return {
    version: tds.version ?? null,
    // Stripe names a flow only when the cardholder was authenticated; anything else showed the shopper nothing.
    flow: tds.authentication_flow === 'challenge' ? 'challenge' : 'frictionless',
    result: RESULTS[tds.result] ?? 'failed',
    eci: tds.electronic_commerce_indicator ?? null,
    liability_shift: SHIFTS_LIABILITY.has(tds.result),
  };
}

/**
 * Where Stripe sends the shopper to authenticate: `next_action.redirect_to_url` (what Stripe answers a confirmation
 * with a `return_url`). Undefined for any other next action (`use_stripe_sdk` needs Stripe.js in the shopper's page).
 */
export function shopperActionOf(intent: Stripe.PaymentIntent): ShopperAction | undefined {
  const next = intent.next_action;
  const url = next?.type === 'redirect_to_url' ? next.redirect_to_url?.url : undefined;
  return url ? { url, method: 'GET' } : undefined;
}

/** Stripe's `last_payment_error.code` when the cardholder failed (or abandoned) the 3-D Secure challenge. */
export const AUTHENTICATION_FAILURE = 'payment_intent_authentication_failure';
