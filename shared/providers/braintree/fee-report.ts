/**
 * Braintree's payment-level fee report (CSV, one per merchant account and day; `report.paymentLevelFees`): the fee
 * Braintree took for each transaction and refund, by its legacy id. Columns are found by their published names (the
 * SDKs' TransactionLevelFeeReportRow): flat-rate reports give `Total Fee Amount`, interchange-plus ones
 * `Est. Total Fee Amount` (interchange estimated) and `Braintree Total Amount`.
 */
import { currencyExponent } from '../../domain/currency.ts';
import { csvRows } from '../csv.ts';

const FEE_COLUMNS = ['Total Fee Amount', 'Est. Total Fee Amount', 'Braintree Total Amount'];

/** A signed decimal in major units as minor units of `currency`, rounded half away from zero, on digits only. */
export function minorOf(text: string, currency: string): number {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (!match[2] && !match[3])) throw new Error(`Braintree fee report: "${text}" is not an amount`);
  const [, sign, whole = '', fraction = ''] = match;
  const exponent = currencyExponent(currency);
  const kept = Number(`${whole || '0'}${fraction.slice(0, exponent).padEnd(exponent, '0')}`);
  const minor = kept + (Number(fraction[exponent] ?? '0') >= 5 ? 1 : 0);
  return sign && minor !== 0 ? -minor : minor;
}

/** Each row's fee (minor units, what Braintree took; negative: given back), by the row's `Transaction ID`. */
export function feesOfReport(csv: string): Map<string, number> {
  const [header, ...rows] = csvRows(csv);
  const column = FEE_COLUMNS.find((name) => header?.includes(name));
  if (!header?.includes('Transaction ID') || !header.includes('Settlement Currency') || !column)
    throw new Error('Braintree fee report: no Transaction ID, Settlement Currency and fee columns');
  const fees = new Map<string, number>();
  for (const cells of rows) {
    const get = (name: string) => cells[header.indexOf(name)] ?? '';
    const id = get('Transaction ID');
    if (id) fees.set(id, (fees.get(id) ?? 0) + minorOf(get(column) || '0', get('Settlement Currency').toUpperCase()));
  }
  return fees;
}
