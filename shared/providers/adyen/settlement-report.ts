/**
 * Adyen's Settlement details report (CSV, one per settlement batch) as our payouts: one per net currency of the batch,
 * its lines the batch's rows, its amount the MerchantPayout row's (the transfer to the bank). Columns are found by
 * their published names, so a report configured with more columns, or in another order, reads the same.
 */
import { currencyExponent } from '../../domain/currency.ts';
import { csvRows } from '../csv.ts';
import type { PayoutLine, PayoutLineType, ProviderPayout } from '../types.ts';
import { ADYEN_EXPONENTS, fromAdyenValue } from './amounts.ts';
import { refundIdOf } from './references.ts';

/** Row types (the report's `Type`) that name a payment of ours, as our line types. */
const LINE_TYPES: Readonly<Record<string, PayoutLineType>> = {
  Settled: 'charge',
  SettledBulk: 'charge',
  Refunded: 'refund',
  RefundedBulk: 'refund',
  RefundedReversed: 'refund',
  Chargeback: 'dispute',
  ChargebackReversed: 'dispute',
  SecondChargeback: 'dispute',
  ChargebackReversedCorrection: 'dispute',
  ChargebackCorrection: 'dispute',
};
/** Adyen's own charges, not tied to a payment: booked as fees. */
const FEE_TYPES = new Set(['Fee', 'MiscCosts', 'PaymentCost', 'InvoiceDeduction']);
const FEE_COLUMNS = ['Commission (NC)', 'Markup (NC)', 'Scheme Fees (NC)', 'Interchange (NC)'];

/** The report's TimeZone names (its setting in the Customer Area) as minutes east of UTC; any other reads as UTC. */
const ZONES: Readonly<Record<string, number>> = {
  UTC: 0,
  GMT: 0,
  WET: 0,
  WEST: 60,
  BST: 60,
  CET: 60,
  CEST: 120,
  EET: 120,
  EEST: 180,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  SGT: 480,
  HKT: 480,
  JST: 540,
  AEST: 600,
  AEDT: 660,
};

/** A decimal amount of the report (major units) as our minor units of `currency`; empty is 0. */
function minorUnits(text: string | undefined, currency: string): number {
  if (!text?.trim()) return 0;
  const exponent = ADYEN_EXPONENTS[currency] ?? currencyExponent(currency);
  return fromAdyenValue(Math.round(Number(text.trim()) * 10 ** exponent), currency);
}

/** `YYYY-MM-DD hh:mm:ss` in the row's zone, as ISO 8601 UTC. */
function instant(date: string, zone: string): string {
  const local = Date.parse(`${date.trim().replace(' ', 'T')}Z`);
  if (Number.isNaN(local)) throw new Error(`Adyen settlement report: "${date}" is not a Creation Date`);
  return new Date(local - (ZONES[zone.trim().toUpperCase()] ?? 0) * 60_000).toISOString();
}

/** The payouts of batch `batch`'s report, one per net currency (reference `batch_<n>`, or `batch_<n>_<currency>` of several). */
export function payoutsOfReport(csv: string, batch: number): ProviderPayout[] {
  const [header, ...rows] = csvRows(csv);
  if (!header?.includes('Type') || !header.includes('Net Currency')) throw new Error('Adyen settlement report: no Type and Net Currency columns');
  const byCurrency = new Map<string, { lines: PayoutLine[]; paid: number | undefined; created: string }>();
  for (const cells of rows) {
    const get = (column: string) => cells[header.indexOf(column)] ?? '';
    const currency = get('Net Currency').toUpperCase();
    if (!currency) continue;
    const entry = byCurrency.get(currency) ?? { lines: [], paid: undefined, created: '' };
    byCurrency.set(currency, entry);
    const created = instant(get('Creation Date'), get('TimeZone'));
    if (created > entry.created) entry.created = created;
    const net = minorUnits(get('Net Credit (NC)'), currency) - minorUnits(get('Net Debit (NC)'), currency);
    const type = get('Type');
    if (type === 'MerchantPayout') {
      entry.paid = (entry.paid ?? 0) - net;
      continue;
    }
    entry.lines.push(lineOf(get, type, currency, net, created));
  }
  const several = byCurrency.size > 1;
  return [...byCurrency].map(([currency, { lines, paid, created }]) => ({
    reference: several ? `batch_${batch}_${currency}` : `batch_${batch}`,
    currency,
    // a batch without a MerchantPayout row paid nothing yet: its balance goes on to a later batch's payout
    amount: paid ?? lines.reduce((sum, line) => sum + line.net, 0),
    created,
    arrivalDate: created.slice(0, 10),
    status: paid === undefined ? 'pending' : 'paid',
    lines,
  }));
}

function lineOf(get: (column: string) => string, type: string, currency: string, net: number, created: string): PayoutLine {
  const psp = get('Psp Reference');
  const modification = get('Modification Reference');
  const lineType = LINE_TYPES[type] ?? (FEE_TYPES.has(type) ? 'fee' : 'adjustment');
  if (lineType === 'fee' || lineType === 'adjustment') {
    const common = { type: lineType, source: modification || psp || type, currency, net, created };
    return lineType === 'fee' ? { ...common, amount: 0, fee: -net } : { ...common, amount: net, fee: 0 };
  }
  const grossCurrency = (get('Gross Currency') || currency).toUpperCase();
  const amount = minorUnits(get('Gross Credit (GC)'), grossCurrency) - minorUnits(get('Gross Debit (GC)'), grossCurrency);
  const fee = FEE_COLUMNS.reduce((sum, column) => sum + minorUnits(get(column), currency), 0);
  const refundId = lineType === 'refund' ? refundIdOf(get('Modification Merchant Reference')) : undefined;
  return {
    type: lineType,
    source: lineType === 'charge' ? psp : modification || psp,
    amount,
    fee,
    net,
    currency: grossCurrency,
    created,
    ...(psp ? { paymentReference: psp } : {}),
    ...(refundId ? { refundId } : {}),
  };
}
