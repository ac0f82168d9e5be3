/**
 * How the Adyen fake answers the sandbox's test cards (`TEST_CARDS` in shared/providers/sandbox.ts): each decline as
 * Adyen reports it, with its `refusalReasonCode`, `refusalReason` and the raw acquirer response (ISO 8583 code and
 * text, `additionalData.refusalReasonRaw`) where an issuer gives one.
 */
import { TEST_CARDS } from '../../../../shared/providers/test-cards.ts';

export interface AdyenRefusal {
  refusalReasonCode: string;
  refusalReason: string;
  refusalReasonRaw?: string;
}

/** Adyen's refusal reasons by code (its "Refusal reasons" page), for declines injected by code. */
export const REFUSAL_REASON_TEXT: Readonly<Record<string, string>> = {
  '2': 'Refused',
  '3': 'Referral',
  '4': 'Acquirer Error',
  '5': 'Blocked Card',
  '6': 'Expired Card',
  '7': 'Invalid Amount',
  '8': 'Invalid Card Number',
  '9': 'Issuer Unavailable',
  '10': 'Not supported',
  '11': '3D Not Authenticated',
  '12': 'Not enough balance',
  '14': 'Acquirer Fraud',
  '20': 'FRAUD',
  '22': 'FRAUD-CANCELLED',
  '23': 'Transaction Not Permitted',
  '24': 'CVC Declined',
  '25': 'Restricted Card',
  '27': 'Declined Non Generic',
  '38': 'Authentication required',
};

/** Our (Stripe's) decline codes of TEST_CARDS, as Adyen's test acquirer refuses them. */
const REFUSAL_FOR_DECLINE: Readonly<Record<string, AdyenRefusal>> = {
  generic_decline: { refusalReasonCode: '2', refusalReason: 'Refused', refusalReasonRaw: '05 : Do not honor' },
  insufficient_funds: { refusalReasonCode: '12', refusalReason: 'Not enough balance', refusalReasonRaw: '51 : Insufficient funds/over credit limit' },
  lost_card: { refusalReasonCode: '5', refusalReason: 'Blocked Card', refusalReasonRaw: '41 : Lost card' },
  stolen_card: { refusalReasonCode: '5', refusalReason: 'Blocked Card', refusalReasonRaw: '43 : Stolen card' },
  expired_card: { refusalReasonCode: '6', refusalReason: 'Expired Card', refusalReasonRaw: '54 : Expired card' },
  incorrect_cvc: { refusalReasonCode: '24', refusalReason: 'CVC Declined', refusalReasonRaw: 'N7 : Decline for CVV2 failure' },
  // Adyen's own risk engine, not the issuer: no raw acquirer response.
  fraudulent: { refusalReasonCode: '22', refusalReason: 'FRAUD-CANCELLED' },
};

/** The refusal of an injected decline: Adyen's code, its text, no raw response. */
export const refusalOfCode = (code: string): AdyenRefusal => ({ refusalReasonCode: code, refusalReason: REFUSAL_REASON_TEXT[code] ?? 'Refused' });

/** A charge on a stored card whose later charges fail (4000000000000341): the issuer refuses it. */
export const LATER_CHARGE_REFUSAL: AdyenRefusal = REFUSAL_FOR_DECLINE.generic_decline!;

export type CardBehaviour =
  | { kind: 'approve'; laterChargesDecline: boolean }
  | { kind: 'refuse'; refusal: AdyenRefusal }
  /** resultCode `Error` (Acquirer Error) at the first attempt of a payment, approved at later ones */
  | { kind: 'error_at_first_attempt' };

/** What the fake does with a raw card number, following TEST_CARDS (any other number is approved). */
export function behaviourOf(number: string): CardBehaviour {
  const card = TEST_CARDS[number];
  if (!card) return { kind: 'approve', laterChargesDecline: false };
  if ('decline' in card) {
    const refusal = REFUSAL_FOR_DECLINE[card.decline];
    if (!refusal) throw new Error(`The Adyen fake has no refusal for TEST_CARDS decline ${card.decline}`);
    return { kind: 'refuse', refusal };
  }
  if ('soft' in card) return { kind: 'error_at_first_attempt' };
  return { kind: 'approve', laterChargesDecline: card.laterChargesDecline };
}

/** The card brand Adyen reports (`paymentMethod.brand`), from the number's first digits. */
export function brandOf(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mc';
  if (/^3[47]/.test(number)) return 'amex';
  return 'cup';
}
