import { currencyExponent } from '../../../../shared/domain/currency.ts';
import { ADYEN_EXPONENTS } from '../../../../shared/providers/adyen/amounts.ts';
import { feeFor } from '../../../../shared/providers/fees.ts';
import type { PayoutFaults } from '../payout-faults.ts';

/** The fake's chargeback fee (minor units of the chargeback's currency), in the Chargeback row's Commission. */
export const ADYEN_CHARGEBACK_FEE = 2000;
export const COMPANY_ACCOUNT = 'OrchestratorTest';

/** A money movement a settlement batch books, in the report's words (amount: Adyen minor units, positive). */
export interface Movement {
  type: 'Settled' | 'Refunded' | 'RefundedReversed' | 'Chargeback' | 'ChargebackReversed';
  merchantAccount: string;
  /** the payment's pspReference and merchant reference */
  pspReference: string;
  merchantReference: string;
  /** the modification's own: the capture's, refund's or chargeback's pspReference, and our reference for it */
  modificationReference: string;
  modificationMerchantReference: string;
  currency: string;
  amount: number;
  /** when it moved (epoch ms) */
  at: number;
}

/** The Settlement details report's columns this fake fills (Adyen's published set, in its order). */
const COLUMNS = [
  'Company Account',
  'Merchant Account',
  'Psp Reference',
  'Merchant Reference',
  'Payment Method',
  'Creation Date',
  'TimeZone',
  'Type',
  'Modification Reference',
  'Gross Currency',
  'Gross Debit (GC)',
  'Gross Credit (GC)',
  'Exchange Rate',
  'Net Currency',
  'Net Debit (NC)',
  'Net Credit (NC)',
  'Commission (NC)',
  'Markup (NC)',
  'Scheme Fees (NC)',
  'Interchange (NC)',
  'Payment Method Variant',
  'Modification Merchant Reference',
  'Batch Number',
] as const;

/** One row, money as Adyen's minor units; `debit` rows take money from the merchant. */
interface Row {
  movement: Movement;
  debit: boolean;
  gross: number;
  commission: number;
}

/** A report's download name: Adyen's for the settlement details report of batch `n`. */
export const reportName = (batch: number) => `settlement_detail_report_batch_${batch}.csv`;

/**
 * Each merchant account's settlement batches, as Adyen closes them: a batch books every movement since the one
 * before (its fee in Commission: the standard price on a capture, the chargeback fee on a chargeback, none on a
 * refund) and one MerchantPayout row per currency paying out the net, and is published as a CSV report.
 */
export class AdyenPayouts {
  private readonly booked = new Set<string>();
  private readonly batches = new Map<string, number>();
  private readonly reports = new Map<string, string>();

  constructor(private readonly movements: (merchantAccount: string) => Movement[]) {}

  /** Closes the account's next batch (faults on its oldest Settled row): its number, name and what each currency paid. */
  payOut(merchantAccount: string, faults: PayoutFaults = {}) {
    const rows = this.movements(merchantAccount)
      .filter((m) => !this.booked.has(keyOf(m)))
      .sort((a, b) => a.at - b.at)
      .map(rowOf);
    if (rows.length === 0) return undefined;
    const batch = (this.batches.get(merchantAccount) ?? 0) + 1;
    this.batches.set(merchantAccount, batch);
    for (const row of rows) this.booked.add(keyOf(row.movement));
    const target = rows.find((row) => row.movement.type === 'Settled');
    if (target) {
      target.gross += faults.line_amount_delta ?? 0;
      target.commission += faults.fee_delta ?? 0;
    }
    const listed = faults.drop_line ? rows.filter((row) => row !== target) : rows;
    const currencies = [...new Set(rows.map((row) => row.movement.currency))].sort();
    const payouts = currencies.map((currency, i) => {
      const net = listed.filter((r) => r.movement.currency === currency).reduce((sum, r) => sum + netOf(r), 0);
      return { currency, amount: net + (i === 0 ? (faults.total_delta ?? 0) : 0) };
    });
    const lines = [COLUMNS.map(cell).join(','), ...listed.map((row) => csvRow(row, batch))];
    for (const payout of payouts) lines.push(payoutRow(merchantAccount, payout, batch));
    this.reports.set(`${merchantAccount}/${reportName(batch)}`, `${lines.join('\r\n')}\r\n`);
    return { batch, name: reportName(batch), payouts };
  }

  /** The report `name` of the account, if it was published. */
  report(merchantAccount: string, name: string): string | undefined {
    return this.reports.get(`${merchantAccount}/${name}`);
  }
}

const keyOf = (m: Movement) => `${m.type} ${m.modificationReference}`;

function rowOf(movement: Movement): Row {
  const debit = movement.type === 'Refunded' || movement.type === 'Chargeback';
  const commission = movement.type === 'Settled' ? feeFor('adyen', movement.amount) : movement.type === 'Chargeback' ? ADYEN_CHARGEBACK_FEE : 0;
  return { movement, debit, gross: movement.amount, commission };
}

/** What the row adds to the payout (negative: what it takes). */
const netOf = (row: Row) => (row.debit ? -(row.gross + row.commission) : row.gross - row.commission);

const decimal = (value: number, currency: string) => {
  const exponent = ADYEN_EXPONENTS[currency] ?? currencyExponent(currency);
  return (value / 10 ** exponent).toFixed(exponent);
};

/** Adyen's "Creation Date" (`YYYY-MM-DD hh:mm:ss`, in the row's TimeZone). */
const creationDate = (at: number) => new Date(at).toISOString().slice(0, 19).replace('T', ' ');

const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

function csvRow(row: Row, batch: number): string {
  const m = row.movement;
  const money = (value: number) => decimal(value, m.currency);
  const net = netOf(row);
  return [
    COMPANY_ACCOUNT,
    m.merchantAccount,
    m.pspReference,
    m.merchantReference,
    'visa',
    creationDate(m.at),
    'UTC',
    m.type,
    m.modificationReference,
    m.currency,
    row.debit ? money(row.gross) : '',
    row.debit ? '' : money(row.gross),
    '1',
    m.currency,
    net < 0 ? money(-net) : '',
    net < 0 ? '' : money(net),
    row.commission ? money(row.commission) : '',
    '',
    '',
    '',
    'visa',
    m.modificationMerchantReference,
    String(batch),
  ]
    .map(cell)
    .join(',');
}

/** The MerchantPayout row of one currency: the transfer to the merchant's bank (Net Debit). */
function payoutRow(merchantAccount: string, payout: { currency: string; amount: number }, batch: number): string {
  const cells = Object.fromEntries(COLUMNS.map((column) => [column, '']));
  Object.assign(cells, {
    'Company Account': COMPANY_ACCOUNT,
    'Merchant Account': merchantAccount,
    'Creation Date': creationDate(Date.now()),
    TimeZone: 'UTC',
    Type: 'MerchantPayout',
    'Modification Reference': `payout-${batch}-${payout.currency}`,
    'Net Currency': payout.currency,
    'Net Debit (NC)': decimal(payout.amount, payout.currency),
    'Batch Number': String(batch),
  });
  return COLUMNS.map((column) => cell(cells[column]!)).join(',');
}
