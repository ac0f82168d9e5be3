/**
 * Braintree's payouts: a settlement per settlement day (UTC, the fee report's day) and merchant account, its lines
 * the transactions and refunds that settled that day and the disputes received that day. Braintree publishes no
 * per-transaction fee in GraphQL: fees come from the day's payment-level fee report. A day is read once it is over
 * and its fee reports are published (else the next run reads it); the cursor is the last day read.
 */
import { clock } from '../../model/clock.ts';
import { logger } from '../../logger.ts';
import { providerDeadlines } from '../deadlines.ts';
import { fetchProviderDocument } from '../documents.ts';
import { within } from '../transport.ts';
import type { PayoutLine, ProviderPayout, ProviderPayouts } from '../types.ts';
import { fromBraintreeAmount } from './amounts.ts';
import { type Answer, type Endpoint, endpointFor, post } from './client.ts';
import type { BraintreeCredentials } from './credentials.ts';
import { feesOfReport } from './fee-report.ts';
import { PAYMENT_LEVEL_FEES, RECEIVED_DISPUTES, SETTLED_REFUNDS, SETTLED_TRANSACTIONS } from './payout-queries.ts';

/** Where Braintree serves its generated reports (over https): its own domains. */
const BRAINTREE_DOCUMENT_DOMAINS = ['braintree-api.com', 'braintreegateway.com', 'braintreepayments.com'];

/** More days than this in one run are read by the next run; more pages than this of one search are not read. */
const MAX_DAYS = 31;
const MAX_PAGES = 200;

type Money = { value: string; currencyCode: string } | null;
interface Settled {
  id: string;
  legacyId: string;
  merchantAccountId: string | null;
  amount: Money;
  statusHistory: Array<{ status: string; timestamp: string }> | null;
  disbursementDetails: { date: string | null; amount: Money } | null;
  refundedTransaction?: { id: string } | null;
}
interface Dispute {
  id: string;
  createdAt: string;
  amountDisputed: Money;
  transaction: { id: string; merchantAccountId: string | null } | null;
}
/** A line, and what Braintree disbursed for it (absent: not disbursed yet). */
type Booked = { line: PayoutLine; account: string; disbursed?: { date: string; net: number } };

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const minor = (money: Money) => fromBraintreeAmount(money?.value ?? '', money?.currencyCode ?? '');

/** Every node of a search, page after page; undefined when Braintree could not be read. */
async function searchAll<T>(endpoint: Endpoint, query: string, field: string, input: object, signal?: AbortSignal): Promise<T[] | undefined> {
  type Page = { search: Record<string, { pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: Array<{ node: T } | null> }> };
  const nodes: T[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer: Answer<Page> = await post<Page>(endpoint, query, { input, after }, within(providerDeadlines.operationMs, signal));
    if (!answer.ok) return undefined;
    const found: Page['search'][string] = answer.data.search[field]!;
    nodes.push(...found.edges.flatMap((edge) => (edge ? [edge.node] : [])));
    if (!found.pageInfo.hasNextPage) break;
    after = found.pageInfo.endCursor;
  }
  return nodes;
}

/** The day's fees of the account by legacy id; null when the report is not published yet; undefined: not read. */
async function feesOf(endpoint: Endpoint, day: string, account: string, signal?: AbortSignal): Promise<Map<string, number> | null | undefined> {
  type Report = { report: { paymentLevelFees: { url: string | null } | null } | null };
  const answer = await post<Report>(
    endpoint,
    PAYMENT_LEVEL_FEES,
    { date: day, merchantAccountId: account },
    within(providerDeadlines.operationMs, signal),
  );
  if (!answer.ok) return undefined;
  const url = answer.data.report?.paymentLevelFees?.url;
  if (!url) return null;
  try {
    // a link to the generated file: Braintree's API keys are not sent with it; only Braintree's hosts, no redirect
    const hosts = { apiOrigin: new URL(endpoint.url).origin, domains: BRAINTREE_DOCUMENT_DOMAINS };
    const response = await fetchProviderDocument(url, hosts, within(providerDeadlines.operationMs, signal));
    if (!response.ok) return undefined;
    return feesOfReport(await response.text());
  } catch (error) {
    logger.error('Braintree fee report unreadable', { day, merchant_account: account, error: (error as Error).message });
    return undefined;
  }
}

function settledLine(payment: Settled, fees: Map<string, number>, refund: boolean): Booked {
  const size = minor(payment.amount);
  const fee = fees.get(payment.legacyId) ?? 0;
  const amount = refund ? -size : size;
  const created = payment.statusHistory?.find((event) => event.status === 'SETTLED')?.timestamp ?? '';
  const paid = payment.disbursementDetails;
  const paymentReference = refund ? payment.refundedTransaction?.id : payment.id;
  const line: PayoutLine = {
    type: refund ? 'refund' : 'charge',
    source: payment.id,
    amount,
    fee,
    net: amount - fee,
    currency: payment.amount!.currencyCode.toUpperCase(),
    created,
    ...(paymentReference ? { paymentReference } : {}),
  };
  const disbursed = paid?.date && paid.amount ? { date: paid.date, net: (refund ? -minor(paid.amount) : minor(paid.amount)) - fee } : undefined;
  return { line, account: payment.merchantAccountId ?? '', ...(disbursed ? { disbursed } : {}) };
}

/** A dispute's line: what the chargeback took (Braintree bills its dispute fee on the monthly statement, not here). */
function disputeLine(dispute: Dispute, day: string): Booked {
  const amount = -minor(dispute.amountDisputed);
  const line: PayoutLine = {
    type: 'dispute',
    source: dispute.id,
    amount,
    fee: 0,
    net: amount,
    currency: dispute.amountDisputed!.currencyCode.toUpperCase(),
    created: dispute.createdAt,
    ...(dispute.transaction ? { paymentReference: dispute.transaction.id } : {}),
  };
  return { line, account: dispute.transaction?.merchantAccountId ?? '', disbursed: { date: day, net: amount } };
}

/** One settlement per merchant account: paid once Braintree disbursed every line, of what it says it disbursed. */
function payoutsOf(day: string, booked: Booked[]): ProviderPayout[] {
  const accounts = [...new Set(booked.map((b) => b.account))].sort();
  return accounts.map((account) => {
    const own = booked.filter((b) => b.account === account);
    const lines = own.map((b) => b.line);
    const paid = own.every((b) => b.disbursed);
    const dates = own.flatMap((b) => (b.disbursed ? [b.disbursed.date] : [])).sort();
    return {
      reference: `${account}_${day}`,
      currency: lines[0]!.currency,
      amount: own.reduce((sum, b) => sum + (b.disbursed?.net ?? b.line.net), 0),
      created: lines.reduce((at, line) => (line.created > at ? line.created : at), ''),
      arrivalDate: paid ? (dates.at(-1) ?? day) : day,
      status: paid ? 'paid' : 'pending',
      lines,
    };
  });
}

/** The day's settlements; null when a fee report is not published yet; undefined when Braintree could not be read. */
async function settlementsOf(
  endpoint: Endpoint,
  accounts: string[],
  day: string,
  signal?: AbortSignal,
): Promise<ProviderPayout[] | null | undefined> {
  const settledAt = { greaterThanOrEqualTo: `${day}T00:00:00.000Z`, lessThanOrEqualTo: `${day}T23:59:59.999Z` };
  const byAccount = accounts.length > 0 ? { merchantAccountId: { in: accounts } } : {};
  const [transactions, refunds, disputes] = await Promise.all([
    searchAll<Settled>(endpoint, SETTLED_TRANSACTIONS, 'transactions', { statusTransition: { settledAt }, ...byAccount }, signal),
    searchAll<Settled>(endpoint, SETTLED_REFUNDS, 'refunds', { statusTransition: { settledAt }, ...byAccount }, signal),
    searchAll<Dispute>(
      endpoint,
      RECEIVED_DISPUTES,
      'disputes',
      {
        receivedDate: { greaterThanOrEqualTo: day, lessThanOrEqualTo: day },
        ...(accounts.length > 0 ? { transaction: byAccount } : {}),
      },
      signal,
    ),
  ]);
  if (!transactions || !refunds || !disputes) return undefined;
  const fees = new Map<string, number>();
  for (const account of new Set([...transactions, ...refunds].map((p) => p.merchantAccountId ?? ''))) {
    const report = await feesOf(endpoint, day, account, signal);
    if (!report) return report;
    for (const [id, fee] of report) fees.set(id, fee);
  }
  try {
    const booked = [
      ...transactions.map((t) => settledLine(t, fees, false)),
      ...refunds.map((r) => settledLine(r, fees, true)),
      ...disputes.map((d) => disputeLine(d, day)),
    ];
    return payoutsOf(day, booked);
  } catch (error) {
    logger.error('Braintree settlement unreadable', { day, error: (error as Error).message });
    return undefined;
  }
}

export const braintreePayouts: ProviderPayouts<BraintreeCredentials> = {
  async payoutsSince(credentials, from, signal) {
    const endpoint = endpointFor(credentials, from.mode);
    const accounts = Object.values(credentials.merchant_account_ids ?? {});
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const payouts: ProviderPayout[] = [];
    let cursor = from.cursor;
    for (let day = cursor ? nextDay(cursor) : from.connectedAt.slice(0, 10), n = 0; day < today && n < MAX_DAYS; day = nextDay(day), n++) {
      const read = await settlementsOf(endpoint, accounts, day, signal);
      if (read === undefined) return undefined;
      if (read === null) break;
      // what moved before the account was connected here is not this service's to reconcile
      for (const payout of read) {
        const lines = payout.lines.filter((line) => line.created >= from.connectedAt.slice(0, 19));
        if (lines.length === payout.lines.length) payouts.push(payout);
        else if (lines.length > 0) payouts.push({ ...payout, lines, amount: lines.reduce((sum, line) => sum + line.net, 0) });
      }
      cursor = day;
    }
    return { payouts, cursor };
  },
};
