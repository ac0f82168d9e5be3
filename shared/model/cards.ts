import { brandOf, type CardBrand } from './card-numbers.ts';
import { hmac } from './credentials.ts';

export { type CardBrand, luhnValid } from './card-numbers.ts';

/** The brand a number's first digits name (shared/model/card-numbers.ts, the table the card fields' script reads too). */
export const cardBrand = (number: string): CardBrand => brandOf(number).name;

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
