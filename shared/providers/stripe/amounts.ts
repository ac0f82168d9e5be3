import { currencyExponent } from '../../domain/currency.ts';

/** Currencies Stripe takes in whole units (docs.stripe.com/currencies#zero-decimal). */
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
/** Thousandths, but Stripe's partners need the last digit to be 0 (#three-decimal). */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);
/** How many decimals Stripe's `amount` has in `currency`. */
export function stripeExponent(currency: string): number {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  // Every other currency, ISK included: ISO 4217 gives ISK no decimals, Stripe's API keeps two (100 is 1 króna).
  return 2;
}

/**
 * Our amount (integer minor units per ISO 4217) as Stripe's `amount`, or undefined when Stripe cannot take it exactly
 * (money is never rounded): a three-decimal amount whose last digit is not 0, or an amount finer than Stripe's unit.
 * The caller answers that as a soft failure (nothing sent), so routing may try a provider that can.
 */
export function toStripeAmount(amount: number, currency: string): number | undefined {
  const ours = currencyExponent(currency);
  const theirs = stripeExponent(currency);
  const scaled = theirs >= ours ? amount * 10 ** (theirs - ours) : amount / 10 ** (ours - theirs);
  if (!Number.isSafeInteger(scaled)) return undefined;
  if (THREE_DECIMAL.has(currency.toUpperCase()) && scaled % 10 !== 0) return undefined;
  return scaled;
}

/**
 * Stripe's `amount` in `currency` as our minor units. Where Stripe keeps more decimals than ISO 4217 (ISK) its amounts
 * are whole multiples of the ISO unit, so the division is exact.
 */
export function fromStripeAmount(amount: number, currency: string): number {
  const ours = currencyExponent(currency);
  const theirs = stripeExponent(currency);
  return theirs >= ours ? Math.round(amount / 10 ** (theirs - ours)) : amount * 10 ** (ours - theirs);
}
