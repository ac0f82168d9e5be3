import { randomBytes } from 'node:crypto';
import { FEES, feeFor } from '../../../../shared/providers/fees.ts';
import type { PayoutFaults } from '../payout-faults.ts';
import { BraintreeError, type CallContext, type BraintreeBook, money, type RefundRecord, type TransactionRecord } from './book.ts';

/** The payment-level fee report's columns this fake fills (a flat-rate report; the SDKs' published names, in order). */
const COLUMNS = [
  'Merchant Account ID',
  'Transaction ID',
  'Original Transaction ID',
  'Transaction Type',
  'Presentment Currency',
  'Settlement Currency',
  'Settlement Amount',
  'Settlement Date',
  'Disbursement Date',
  'Payment Instrument',
  'Card Brand',
  'Exchange Rate',
  'Order ID',
  'Discount',
  'Discount Credit',
  'Per Transaction Fee',
  'Per Transaction Fee Credit',
  'Total Fee Amount',
] as const;

type Payment = { kind: 'sale'; record: TransactionRecord } | { kind: 'credit'; record: RefundRecord };
/** What a payout fault changed of a payment: the amount its settlement shows, its fee, what was disbursed for it. */
interface Adjustment {
  amount: number;
  fee: number;
  disbursed: number;
}
type Range = { greaterThanOrEqualTo?: string | null; lessThanOrEqualTo?: string | null } | null | undefined;
type SearchInput = Record<string, unknown> & { merchantAccountId?: { in?: string[] | null; is?: string | null } | null };

const settledAt = (p: { history: Array<{ status: string; timestamp: string }> }) => p.history.find((e) => e.status === 'SETTLED')?.timestamp;
const inRange = (value: string | undefined, range: Range) =>
  value !== undefined &&
  (!range?.greaterThanOrEqualTo || value >= range.greaterThanOrEqualTo) &&
  (!range?.lessThanOrEqualTo || value <= range.lessThanOrEqualTo);
const ofAccounts = (account: string, filter: SearchInput['merchantAccountId']) =>
  (!filter?.in || filter.in.includes(account)) && (!filter?.is || filter.is === account);
const today = () => new Date().toISOString().slice(0, 10);
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const decimal = (minor: number, currency: string) => (minor < 0 ? `-${money(-minor, currency).value}` : money(minor, currency).value);

function refuseOther(input: Record<string, unknown>, allowed: string[], what: string): void {
  const other = Object.keys(input).find((key) => input[key] != null && !allowed.includes(key));
  if (other) throw new BraintreeError(`the fake searches ${what} by ${allowed.join(', ')} only, not ${other}`, 'VALIDATION');
}

/** A page of a connection (`after`: the cursor of the last edge read, here its position). */
function page<T>(nodes: T[], first: number | null | undefined, after: string | null | undefined) {
  const start = after ? Number(after) + 1 : 0;
  const slice = nodes.slice(start, start + (first ?? 50));
  return {
    edges: slice.map((node, i) => ({ cursor: String(start + i), node })),
    pageInfo: {
      hasNextPage: start + slice.length < nodes.length,
      hasPreviousPage: false,
      startCursor: slice.length ? String(start) : null,
      endCursor: slice.length ? String(start + slice.length - 1) : null,
    },
  };
}

/**
 * Braintree's settlement side, as the fake keeps it: the searches reconciliation makes (what settled on a day, what
 * was disputed), and on demand (`payOut`) the disbursement of everything settled and not paid out yet, with each
 * merchant account's payment-level fee report of the day (the standard price on a sale, none on a refund), served at
 * an unguessable link. The faults of `payOut` hit the oldest sale it pays out.
 */
export class BraintreePayouts {
  private readonly paid = new Set<string>();
  private readonly dropped = new Set<string>();
  private readonly adjusted = new Map<string, Adjustment>();
  private readonly disbursedOn = new Map<string, string>();
  private readonly rows = new Map<string, string[]>();
  private readonly links = new Map<string, string>();

  constructor(
    private readonly gateway: BraintreeBook,
    private readonly origin: () => string,
  ) {}

  /** Pays out what settled at the merchant account (every one by default): per account and settlement day, what was paid. */
  payOut(merchantId: string, faults: PayoutFaults = {}, merchantAccount?: string) {
    const of = (account: string) => !merchantAccount || account === merchantAccount;
    const payments: Payment[] = [
      ...[...this.gateway.transactions.values()].map((record) => ({ kind: 'sale' as const, record })),
      ...[...this.gateway.refunds.values()].map((record) => ({ kind: 'credit' as const, record })),
    ].filter(({ kind, record }) => {
      const tx = kind === 'sale' ? record : record.transaction;
      return tx.merchantId === merchantId && of(tx.merchantAccountId) && settledAt(record) && !this.paid.has(record.id);
    });
    const disputes = [...this.gateway.disputes.values()].filter(
      (d) => d.transaction.merchantId === merchantId && of(d.transaction.merchantAccountId) && !this.paid.has(d.id),
    );
    if (payments.length === 0 && disputes.length === 0) throw new Error('nothing settled to pay out since the last payout');
    const sales = payments.filter((p) => p.kind === 'sale').sort((a, b) => settledAt(a.record)!.localeCompare(settledAt(b.record)!));
    const target = sales[0]?.record.id;
    const totals = new Map<string, { merchantAccount: string; day: string; currency: string; amount: number }>();
    const add = (merchantAccount: string, day: string, currency: string, amount: number) => {
      const key = `${merchantAccount}/${day}`;
      const total = totals.get(key) ?? { merchantAccount, day, currency, amount: 0 };
      totals.set(key, { ...total, amount: total.amount + amount });
    };
    for (const payment of payments) {
      const { id } = payment.record;
      this.paid.add(id);
      if (id === target && faults.drop_line) {
        this.dropped.add(id);
        continue;
      }
      const tx = payment.kind === 'sale' ? payment.record : payment.record.transaction;
      const size = payment.kind === 'sale' ? payment.record.captured : payment.record.amount;
      const hit = id === target;
      const amount = size + (hit ? (faults.line_amount_delta ?? 0) : 0);
      const fee = (payment.kind === 'sale' ? feeFor('braintree', size) : 0) + (hit ? (faults.fee_delta ?? 0) : 0);
      const disbursed = amount + (hit ? (faults.total_delta ?? 0) : 0);
      this.adjusted.set(id, { amount, fee, disbursed });
      this.disbursedOn.set(id, today());
      const day = settledAt(payment.record)!.slice(0, 10);
      this.addRow(tx.merchantAccountId, day, payment, amount, fee);
      add(tx.merchantAccountId, day, tx.currency, (payment.kind === 'sale' ? disbursed : -disbursed) - fee);
    }
    for (const dispute of disputes) {
      this.paid.add(dispute.id);
      add(dispute.transaction.merchantAccountId, dispute.receivedDate, dispute.transaction.currency, -dispute.amount);
    }
    return { payouts: [...totals.values()].sort((a, b) => `${a.day}${a.merchantAccount}`.localeCompare(`${b.day}${b.merchantAccount}`)) };
  }

  /** The fee report behind a link, if there is one. */
  download(token: string): string | undefined {
    const key = this.links.get(token);
    return key && [COLUMNS.map(cell).join(','), ...this.rows.get(key)!].join('\r\n') + '\r\n';
  }

  /** The `search` root's reconciliation fields (transactions only when searched by settlement time). */
  readonly search = {
    settledTransactions: ({ input, first, after }: { input: SearchInput; first?: number | null; after?: string | null }, ctx: CallContext) => {
      refuseOther(input, ['statusTransition', 'merchantAccountId'], 'settled transactions');
      const range = (input.statusTransition as { settledAt?: Range } | null)?.settledAt;
      const found = [...this.gateway.transactions.values()].filter(
        (tx) =>
          tx.merchantId === ctx.merchant.id &&
          !this.dropped.has(tx.id) &&
          ofAccounts(tx.merchantAccountId, input.merchantAccountId) &&
          inRange(settledAt(tx), range),
      );
      return page(
        found.map((tx) => this.settled(tx.id, tx.currency, this.gateway.transactionView(tx))),
        first,
        after,
      );
    },
    refunds: ({ input, first, after }: { input: SearchInput; first?: number | null; after?: string | null }, ctx: CallContext) => {
      refuseOther(input, ['statusTransition', 'merchantAccountId'], 'refunds');
      const range = (input.statusTransition as { settledAt?: Range } | null)?.settledAt;
      const found = [...this.gateway.refunds.values()].filter(
        (r) =>
          r.transaction.merchantId === ctx.merchant.id &&
          ofAccounts(r.transaction.merchantAccountId, input.merchantAccountId) &&
          inRange(settledAt(r), range),
      );
      return page(
        found.map((r) => this.settled(r.id, r.transaction.currency, this.gateway.refundView(r))),
        first,
        after,
      );
    },
    disputes: ({ input, first, after }: { input: SearchInput; first?: number | null; after?: string | null }, ctx: CallContext) => {
      refuseOther(input, ['receivedDate', 'transaction'], 'disputes');
      const byAccount = (input.transaction as { merchantAccountId?: SearchInput['merchantAccountId'] } | null)?.merchantAccountId;
      const found = [...this.gateway.disputes.values()].filter(
        (d) =>
          d.transaction.merchantId === ctx.merchant.id &&
          ofAccounts(d.transaction.merchantAccountId, byAccount) &&
          inRange(d.receivedDate, input.receivedDate as Range),
      );
      return page(
        found.map((d) => this.gateway.disputeView(d)),
        first,
        after,
      );
    },
  };

  /** What the links to reports are turned into (a test's rewrite: a link elsewhere). */
  linkReport: (link: string) => string = (link) => link;

  /** `report.paymentLevelFees`: the link to the account's report of the day, once a payout published one. */
  readonly report = {
    paymentLevelFees: ({ date, merchantAccountId }: { date: string; merchantAccountId?: string | null }, ctx: CallContext) => {
      if (!ctx.merchant.accounts.some((a) => a.id === merchantAccountId))
        throw new BraintreeError('Merchant account ID is invalid.', 'VALIDATION', undefined, ['merchantAccountId']);
      const token = [...this.links].find(([, key]) => key === `${merchantAccountId}/${date}`)?.[0];
      return { url: token ? this.linkReport(`${this.origin()}/reports/${token}.csv`) : null };
    },
  };

  /** A settled payment's view as the payout shows it: the amount its settlement carried, what was disbursed. */
  private settled<T extends { amount: unknown }>(id: string, currency: string, view: T) {
    const adjusted = this.adjusted.get(id);
    const date = this.disbursedOn.get(id);
    return {
      ...view,
      ...(adjusted ? { amount: money(adjusted.amount, currency) } : {}),
      disbursementDetails: adjusted && date ? { date, amount: money(adjusted.disbursed, currency), exchangeRate: '1', fundsHeld: false } : null,
    };
  }

  private addRow(account: string, day: string, payment: Payment, amount: number, fee: number): void {
    const key = `${account}/${day}`;
    if (![...this.links.values()].includes(key)) this.links.set(randomBytes(16).toString('hex'), key);
    const sale = payment.kind === 'sale';
    const tx = sale ? payment.record : payment.record.transaction;
    const c = tx.currency;
    const fixed = decimal(sale ? FEES.braintree.fixed : 0, c);
    const row = [
      account,
      payment.record.legacyId,
      sale ? '' : tx.legacyId,
      payment.kind,
      c,
      c,
      decimal(amount, c),
      day,
      today(),
      'Credit Card',
      'Visa',
      '1',
      payment.record.orderId ?? '',
      sale ? FEES.braintree.percent.toFixed(2) : '0.00',
      '0.00',
      fixed,
      '0.00',
      decimal(fee, c),
    ];
    this.rows.set(key, [...(this.rows.get(key) ?? []), row.map(cell).join(',')]);
  }
}
