import { AUTHENTICATION_CARDS, TEST_CARDS } from '../../../../shared/providers/test-cards.ts';
import { CHALLENGE_CARDS } from '../adyen/three-d-secure.ts';

/**
 * How the fake answers an authorization, in Braintree's own terms: authorized, declined by the processor (its
 * processor response code), rejected by the gateway (the merchant's rules), or failed (the processor unreachable).
 */
export type BraintreeAnswer =
  | { status: 'AUTHORIZED' }
  | { status: 'PROCESSOR_DECLINED'; code: string; message: string; declineType: 'HARD' | 'SOFT' }
  | { status: 'GATEWAY_REJECTED'; reason: string }
  | { status: 'FAILED'; code: string; message: string };

/** Braintree's processor response texts for the codes the fake answers with. */
export const PROCESSOR_MESSAGES: Readonly<Record<string, string>> = {
  '2000': 'Do Not Honor',
  '2001': 'Insufficient Funds',
  '2004': 'Expired Card',
  '2010': 'Card Issuer Declined CVV',
  '2012': 'Processor Declined - Possible Lost Card',
  '2013': 'Processor Declined - Possible Stolen Card',
  '2014': 'Processor Declined - Fraud Suspected',
  '2038': 'Processor Declined',
  '2046': 'Declined',
  '2099': 'Cardholder Authentication Required',
  '3000': 'Processor Network Unavailable - Try Again',
};

/** Braintree's soft declines (may succeed later); the rest of 2000–2999 are hard. */
const SOFT_DECLINES = new Set(['2001', '2038', '2046', '2099']);

/** A raw Braintree code as a fault or a test card names it: a processor response code, or a gateway rejection reason. */
export function answerFor(code: string): BraintreeAnswer {
  if (/^3\d{3}$/.test(code)) return { status: 'FAILED', code, message: PROCESSOR_MESSAGES[code] ?? 'Processor Network Unavailable - Try Again' };
  if (/^\d{4}$/.test(code)) {
    return {
      status: 'PROCESSOR_DECLINED',
      code,
      message: PROCESSOR_MESSAGES[code] ?? 'Processor Declined',
      declineType: SOFT_DECLINES.has(code) ? 'SOFT' : 'HARD',
    };
  }
  return { status: 'GATEWAY_REJECTED', reason: code.toUpperCase() };
}

/** Stripe's decline codes in the sandbox's table → the answer Braintree gives for such a card. */
const BRAINTREE_CODE_FOR: Readonly<Record<string, string>> = {
  generic_decline: '2046',
  insufficient_funds: '2001',
  lost_card: '2012',
  stolen_card: '2013',
  expired_card: '2004',
  incorrect_cvc: '2010',
  fraudulent: 'fraud',
};

/**
 * The issuer asks for 3-D Secure (strong customer authentication) for the cards that challenge at Stripe and Adyen
 * (Stripe's 3184, 3220 and 1629; Adyen's 5454… and 4917…). A server-side Braintree transaction carries no 3-D Secure
 * (that runs in Braintree's client SDK), so the processor declines it `2099 Cardholder Authentication Required`, a
 * soft decline: the shopper's charges of a new card, and, for 3184, every charge, merchant-initiated ones too.
 */
export const AUTHENTICATION_REQUIRED_CODE = '2099';
export function authenticationAskedFor(number: string): 'shopper' | 'every_charge' | undefined {
  const stripe = AUTHENTICATION_CARDS[number];
  if (stripe && 'challenge' in stripe && stripe.challenge) return stripe.everyCharge ? 'every_charge' : 'shopper';
  return CHALLENGE_CARDS[number] ? 'shopper' : undefined;
}

/** A vaulted card from 4000000000000341: it was authorized once; merchant-initiated charges on it are declined. */
export const LATER_CHARGES_DECLINE_CODE = '2046';

/**
 * The fake's answer for a card number, following the sandbox's TEST_CARDS (shared/providers/sandbox.ts). The sandbox's
 * "processing error at the first provider" card is a processor outage (3000) here: the fake is one provider.
 */
export function answerForCard(number: string): BraintreeAnswer & { laterChargesDecline?: boolean } {
  const behaviour = TEST_CARDS[number];
  if (!behaviour) return { status: 'AUTHORIZED' };
  if ('decline' in behaviour) {
    const code = BRAINTREE_CODE_FOR[behaviour.decline];
    if (!code) throw new Error(`the Braintree fake has no answer for the sandbox's ${behaviour.decline}`);
    return answerFor(code);
  }
  if ('soft' in behaviour) return answerFor('3000');
  return { status: 'AUTHORIZED', laterChargesDecline: true };
}
