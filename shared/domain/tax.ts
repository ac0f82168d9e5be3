/**
 * Invoice money: tax rates, totals and how an amount is shown. All arithmetic is exact (integers / BigInt):
 * a tax rate is read as an integer count of ten-thousandths of a percent (7.25 % → 72,500), so no float rounding
 * ever decides a minor unit.
 */
import { currencyExponent } from './currency.ts';
import { BadRequest } from '../model/errors.ts';

/** A tax rate has at most this many decimals (docs/api.md "Invoices"). */
export const TAX_RATE_DECIMALS = 4;
const RATE_SCALE = 10n ** BigInt(TAX_RATE_DECIMALS);
/** subtotal × rate% = subtotal × units / (100 × 10^4) */
const DIVISOR = 100n * RATE_SCALE;

/** `String(n)` of a number in 0–100 with at most 4 decimals is always this shape (no exponent form). */
const RATE_TEXT = /^(\d{1,3})(?:\.(\d{1,4}))?$/;

/**
 * The rate as an exact integer of ten-thousandths of a percent (8.875 → 88,750), or undefined when it is not a
 * number from 0 to 100 with at most 4 decimals. `String()` gives the shortest text that reads back as the same
 * double, which is the decimal the client wrote.
 */
export function taxRateUnits(rate: unknown): bigint | undefined {
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 100) return undefined;
  const match = RATE_TEXT.exec(String(rate));
  if (!match) return undefined;
  const [, whole, fraction = ''] = match;
  return BigInt(whole!) * RATE_SCALE + BigInt(fraction.padEnd(TAX_RATE_DECIMALS, '0'));
}

export const isTaxRate = (rate: unknown): rate is number => taxRateUnits(rate) !== undefined;

export interface LineItem {
  name: string;
  /** per unit, minor units */
  amount: number;
  quantity: number;
}

export interface InvoiceTotals {
  subtotal: number;
  tax: number;
  total: number;
}

/**
 * subtotal = Σ amount × quantity; tax = subtotal × rate / 100 rounded half up to a minor unit; total = subtotal + tax.
 * Throws a 400 naming `tax_rate` for a rate that is not 0–100 with at most 4 decimals.
 */
export function invoiceTotals(items: readonly LineItem[], taxRate: number): InvoiceTotals {
  const units = taxRateUnits(taxRate);
  if (units === undefined) throw new BadRequest('parameter_invalid', 'tax_rate');
  const subtotal = items.reduce((sum, item) => sum + BigInt(item.amount) * BigInt(item.quantity), 0n);
  // Half up for non-negative values: add half the divisor, then truncate.
  const tax = (subtotal * units + DIVISOR / 2n) / DIVISOR;
  // The largest invoice (100 × 99,999,999 × 10,000, plus 100 % tax) is far below 2^53: safe as a JSON number.
  return { subtotal: Number(subtotal), tax: Number(tax), total: Number(subtotal + tax) };
}

/** `1234.56` → `1,234.56`; digits only. */
const group = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * An amount in minor units as people read it, with the currency's ISO 4217 exponent:
 * `formatMoney(123456, 'USD')` → `USD 1,234.56`, `formatMoney(1235, 'JPY')` → `JPY 1,235`, `formatMoney(1, 'KWD')` → `KWD 0.001`.
 */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  const exponent = currencyExponent(code);
  const sign = amount < 0 ? '-' : '';
  const digits = BigInt(Math.abs(Math.trunc(amount)))
    .toString()
    .padStart(exponent + 1, '0');
  const whole = group(digits.slice(0, digits.length - exponent));
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${code} ${sign}${whole}${fraction}`;
}

/** A rate as written on an invoice: `7.25%`, `8.875%`, `0%`. */
export const formatTaxRate = (rate: number): string => `${rate}%`;
