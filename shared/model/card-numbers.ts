/**
 * What a card number says: its brand (the first digits that name it, the lengths its numbers have, its CVC's length,
 * how it is grouped on screen) and whether it passes the Luhn check. The server (`shared/model/cards.ts`) and the card
 * fields' script (`shared/hosted/browser/card-fields-frame.ts`) both read this module, so it imports nothing: it is
 * bundled for browsers too.
 */
/** Every brand's name as the API writes it (a payment's card, a routing rule's condition). */
export const CARD_BRAND_NAMES = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'diners', 'unionpay', 'unknown'] as const;
export type CardBrand = (typeof CARD_BRAND_NAMES)[number];

export interface Brand {
  name: CardBrand;
  /** what a shopper reads; '' for an unknown brand */
  label: string;
  lengths: readonly number[];
  /** the length checked from while the shopper types (16 when absent) */
  usual?: number;
  cvc: number;
  /** digits per group on screen (4 4 4 4 3 when absent) */
  groups?: readonly number[];
}

/** Each brand with the first digits that name it. */
export const CARD_BRANDS: ReadonlyArray<Brand & { prefix: RegExp }> = [
  { name: 'amex', label: 'American Express', prefix: /^3[47]/, lengths: [15], usual: 15, cvc: 4, groups: [4, 6, 5] },
  { name: 'diners', label: 'Diners Club', prefix: /^3(0[0-5]|[68])/, lengths: [14, 16, 19], cvc: 3 },
  { name: 'jcb', label: 'JCB', prefix: /^35(2[89]|[3-8])/, lengths: [16, 17, 18, 19], cvc: 3 },
  { name: 'visa', label: 'Visa', prefix: /^4/, lengths: [13, 16, 19], cvc: 3 },
  { name: 'mastercard', label: 'Mastercard', prefix: /^(5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/, lengths: [16], cvc: 3 },
  { name: 'discover', label: 'Discover', prefix: /^(6011|64[4-9]|65)/, lengths: [16, 17, 18, 19], cvc: 3 },
  { name: 'unionpay', label: 'UnionPay', prefix: /^62/, lengths: [16, 17, 18, 19], cvc: 3 },
];

export const UNKNOWN_BRAND: Brand = { name: 'unknown', label: '', lengths: [13, 14, 15, 16, 17, 18, 19], cvc: 3 };

/** The brand of a number (its digits only; a prefix while the shopper types). */
export const brandOf = (digits: string): Brand => CARD_BRANDS.find((brand) => brand.prefix.test(digits)) ?? UNKNOWN_BRAND;

/** The Luhn check digit test every card number passes. */
export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
