import { currencyExponent } from '../../domain/currency.ts';

/**
 * Adyen's minor units differ from ISO 4217 for a few currencies (its "Currency codes" page: "the decimals in the table
 * on this page are leading"); every other currency, the three-decimal ones (BHD, IQD, JOD, KWD, LYD, OMR, TND)
 * included, uses ISO's exponent, so our amount (minor units per ISO 4217) is sent unchanged.
 */
export const ADYEN_EXPONENTS: Readonly<Record<string, number>> = { CLP: 2, CVE: 0, IDR: 0, ISK: 2 };

/** `amount` (our minor units) as Adyen's `Amount.value`, or undefined when Adyen's units cannot express it exactly. */
export function adyenValue(amount: number, currency: string): number | undefined {
  const code = currency.toUpperCase();
  const shift = (ADYEN_EXPONENTS[code] ?? currencyExponent(code)) - currencyExponent(code);
  if (shift >= 0) return amount * 10 ** shift;
  const divisor = 10 ** -shift;
  return amount % divisor === 0 ? amount / divisor : undefined;
}

/** Adyen's `Amount.value` in `currency` as our minor units (a notification's amount), rounded where units differ. */
export function fromAdyenValue(value: number, currency: string): number {
  const code = currency.toUpperCase();
  const shift = (ADYEN_EXPONENTS[code] ?? currencyExponent(code)) - currencyExponent(code);
  return shift === 0 ? value : Math.round(value / 10 ** shift);
}
