import { currencyExponent } from '../../domain/currency.ts';

/**
 * Braintree's `Amount` scalar is a decimal string in the currency's major unit ("10.00" USD, "1000" JPY, "1.250" KWD):
 * "either a whole number or a number with exactly two or three decimal places". Our amounts are integers in minor
 * units (ISO 4217 exponent, shared/domain/currency.ts). Both directions work on digits only, never through floating
 * point, so 1.005 never becomes 1.00 and 0.1 + 0.2 never shows up.
 */

/** An amount Braintree cannot carry: not a positive safe integer, or a currency with more than 3 decimals (CLF, UYW). */
export class UnsupportedAmount extends Error {}

/** The most decimals the `Amount` scalar allows. */
const MAX_BRAINTREE_DECIMALS = 3;

/** 1050 USD → "10.50"; 1000 JPY → "1000"; 1250 KWD → "1.250"; 5 USD → "0.05". */
export function toBraintreeAmount(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor) || minor <= 0) throw new UnsupportedAmount(`amount must be a positive integer in minor units, got ${minor}`);
  const exponent = currencyExponent(currency);
  if (exponent > MAX_BRAINTREE_DECIMALS) throw new UnsupportedAmount(`${currency} has ${exponent} decimals; Braintree amounts have at most 3`);
  if (exponent === 0) return String(minor);
  const digits = String(minor).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** `minor` as Braintree's `Amount`, or undefined when Braintree cannot carry it (UnsupportedAmount). */
export function braintreeAmount(minor: number, currency: string): string | undefined {
  try {
    return toBraintreeAmount(minor, currency);
  } catch (error) {
    if (error instanceof UnsupportedAmount) return undefined;
    throw error;
  }
}

/**
 * "10.5" / "10.50" / "10" USD → 1050 / 1050 / 1000; "1000" JPY → 1000; "1.250" KWD → 1250. Throws on anything that is
 * not a plain non-negative decimal, or that has non-zero digits beyond the currency's exponent (it would not be a
 * whole number of minor units).
 */
export function fromBraintreeAmount(value: string, currency: string): number {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) throw new UnsupportedAmount(`not a Braintree amount: ${JSON.stringify(value)}`);
  const [, whole = '', fraction = ''] = match;
  const exponent = currencyExponent(currency);
  if (/[1-9]/.test(fraction.slice(exponent))) throw new UnsupportedAmount(`${value} is not a whole number of ${currency} minor units`);
  const minor = Number(`${whole}${fraction.slice(0, exponent).padEnd(exponent, '0')}`);
  if (!Number.isSafeInteger(minor)) throw new UnsupportedAmount(`${value} ${currency} is too large`);
  return minor;
}

/** Whether Braintree's `value` is our `minor` amount (false when it is not an amount at all). */
export function sameAmount(value: string | null | undefined, minor: number, currency: string): boolean {
  try {
    return value != null && fromBraintreeAmount(value, currency) === minor;
  } catch {
    return false;
  }
}

/** Braintree's amount and currency as ours (minor units, upper-case code), or undefined when it cannot be read. */
export function moneyOf(value: string | null | undefined, currency: string | null | undefined): { amount: number; currency: string } | undefined {
  if (!value || !currency) return undefined;
  try {
    return { amount: fromBraintreeAmount(value, currency), currency: currency.toUpperCase() };
  } catch {
    return undefined;
  }
}
