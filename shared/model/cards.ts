import { hmac } from './credentials.ts';

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

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners' | 'unionpay' | 'unknown';

const BRANDS: ReadonlyArray<[CardBrand, RegExp]> = [
  ['amex', /^3[47]/],
  ['diners', /^3(0[0-5]|[68])/],
  ['jcb', /^35(2[89]|[3-8])/],
  ['visa', /^4/],
  ['mastercard', /^(5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/],
  ['discover', /^(6011|64[4-9]|65)/],
  ['unionpay', /^62/],
];

export const cardBrand = (number: string): CardBrand => BRANDS.find(([, re]) => re.test(number))?.[0] ?? 'unknown';

/** Identifies a card across payments without storing its number: HMAC-SHA256 with the fingerprints secret. */
export const cardFingerprint = (secret: string, number: string): string => hmac(secret, `card:${number}`).slice(0, 32);

/**
 * The card's first `digits` digits (its BIN), only for a number of 15 digits or more: a shorter number keeps its last
 * four and nothing else (its first six and last four together would be most of it). '' for a shorter one, which
 * routing rules and risk scoring then read as no BIN.
 */
export const binOf = (number: string, digits = 6): string => (number.length >= 15 ? number.slice(0, digits) : '');

/** What is kept of a card: never the number or the CVC; the BIN only from 15 digits (`binOf`). */
export interface StoredCard {
  brand: CardBrand;
  last4: string;
  bin: string;
  exp_month: number;
  exp_year: number;
  fingerprint: string;
}
