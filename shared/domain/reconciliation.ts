import * as v from 'valibot';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { sendJson } from '../queues-client.ts';
import { type PayoutLine, type ProviderPayout, payoutsModule } from '../providers/index.ts';
import type { ConnectorRecord } from '../store/connectors.ts';
import * as connectorsStore from '../store/connectors.ts';
import * as disputesStore from '../store/disputes.ts';
import * as inbound from '../store/inbound.ts';
import type { Owner } from '../model/targets.ts';
import * as ledger from '../store/ledger.ts';
import * as payments from '../store/payments.ts';
import * as reconciliationStore from '../store/reconciliation.ts';
import type { ExceptionRecord } from '../store/reconciliation.ts';
import * as settlementsStore from '../store/settlements.ts';
import type { SettlementRecord } from '../store/settlements.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { clock } from '../model/clock.ts';
import { openedCredentials } from './connectors.ts';
import { NotFound, ProvidersUnavailable } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { idFor } from '../model/ids.ts';
import { type ExpectedMovement, type Finding, type LedgerObject, matchPayout, movementKey } from './reconciliation-matching.ts';
import { exceptionView } from './reconciliation-exceptions.ts';
import { settlementView } from './settlements.ts';

/** A payment is captured within this long of its authorization (Stripe's authorizations last 7 days). */
const CAPTURE_WINDOW_MS = 8 * 86_400_000;
const PAGE = 100;

export interface RunSummary {
  object: 'reconciliation_run';
  connector_id: string;
  livemode: boolean;
  payouts_read: number;
  settlements_created: string[];
  lines_matched: number;
  exceptions_created: number;
}

/**
 * Reconciles a connector account with its provider's payouts since its last run: each payout not seen before becomes
 * one settlement (its id derived from the payout, so a second run changes nothing) with its lines matched to our
 * payments, refunds and disputes, its real fees booked and what it carried taken from the account's held funds; every
 * difference becomes an exception (written before the settlement, each once). Sandbox money is not touched.
 */
export async function reconcileAccount(account: ConnectorRecord): Promise<RunSummary> {
  const owner = connectorsStore.ownerOfConnector(account);
  const module = await payoutsModule(account.provider);
  const lastRun = await reconciliationStore.readLastRun(owner, account.id);
  const credentials = await openedCredentials(account);
  const read = await module.payoutsSince(credentials, { cursor: lastRun?.cursor ?? null, connectedAt: account.created_at, mode: account.mode });
  if (!read) throw new ProvidersUnavailable(`${account.provider} could not be read; the next run reads these payouts again`);
  const { payouts } = read;
  const summary: RunSummary = {
    object: 'reconciliation_run',
    connector_id: account.id,
    livemode: owner.livemode,
    payouts_read: payouts.length,
    settlements_created: [],
    lines_matched: 0,
    exceptions_created: 0,
  };
  const cutoffs = { ...lastRun?.cutoffs };
  const carried = { ...lastRun?.carried };
  for (const payout of payouts) {
    // The window ends with the second of the payout's newest movement (providers stamp whole seconds, and pay what
    // moved in one second together); a movement it paid that our ledger records as made later is carried over, so the
    // next payout's window does not count it missing.
    const newest = payout.lines.reduce((at, line) => (line.created > at ? line.created : at), '');
    const from = cutoffs[payout.currency] ?? account.created_at;
    const window = { from, to: newest ? `${newest.slice(0, 19)}.999Z` : from };
    const outcome = await reconcilePayout(account, owner, payout, window, new Set(carried[payout.currency] ?? []));
    summary.lines_matched += outcome.matched;
    summary.exceptions_created += outcome.exceptions;
    if (outcome.created) summary.settlements_created.push(outcome.settlementId);
    if (!outcome.created) continue;
    const advanced = window.to > window.from;
    cutoffs[payout.currency] = advanced ? window.to : from;
    carried[payout.currency] = [...(advanced ? [] : (carried[payout.currency] ?? [])), ...outcome.paidAfter];
  }
  if (read.cursor !== (lastRun?.cursor ?? null))
    await reconciliationStore.saveLastRun(owner, account.id, lastRun, { cursor: read.cursor, cutoffs, carried });
  logger.info('Reconciliation run', { ...summary, settlements_created: summary.settlements_created.length });
  return summary;
}

/** The settlement of one payout, its exceptions and its counters, unless a run before made them. */
async function reconcilePayout(
  account: ConnectorRecord,
  owner: Owner,
  payout: ProviderPayout,
  window: { from: string; to: string },
  paidBefore: ReadonlySet<string>,
) {
  const origin = { at: Date.parse(payout.created), seed: `${account.id}#${payout.reference}` };
  const settlementId = idFor('settlement', origin);
  if (await settlementsStore.settlementExists(settlementId)) return { created: false, settlementId, matched: 0, exceptions: 0, paidAfter: [] };
  const resolve = resolver(account, owner);
  const found = await Promise.all(payout.lines.map((line) => resolve(line)));
  const expected = (await movementsIn(account, owner, payout.currency, window)).filter((m) => !paidBefore.has(movementKey(m)));
  const { lines, findings } = matchPayout(payout, found, expected, account.fees);

  let exceptions = 0;
  for (const finding of findings) if (await writeException(account, owner, payout, settlementId, finding)) exceptions++;

  const now = new Date(clock.now()).toISOString();
  const settlement: SettlementRecord = {
    id: settlementId,
    merchant_id: owner.merchant_id,
    livemode: owner.livemode,
    amount: payout.amount,
    currency: payout.currency,
    status: payout.status,
    arrival_date: payout.arrivalDate,
    transactions: lines.filter((l) => l.type === 'charge').length,
    created_at: now,
    paid_at: payout.status === 'paid' ? now : null,
    payout: {
      connector_id: account.id,
      provider_payout_id: payout.reference,
      gross: lines.reduce((sum, l) => sum + l.amount, 0),
      fees: lines.reduce((sum, l) => sum + l.fee, 0),
      lines: lines.map(({ day: _day, booked: _booked, ...line }) => line),
    },
  };
  const feesByDay = new Map<string, number>();
  for (const line of lines) feesByDay.set(line.day, (feesByDay.get(line.day) ?? 0) + line.fee);
  const paidOut = lines.reduce((sum, l) => sum + l.booked, 0);
  const events = payout.status === 'paid' ? [newEvent(owner, 'settlement.paid', settlementView(settlement))] : [];
  const counters = ledger.payoutCounters(owner, account.id, payout.currency, paidOut, feesByDay);
  const created = await settlementsStore.putPayoutSettlement(settlement, events, counters);
  const matched = lines.filter((l) => l.payment_id !== null).length;
  // what it paid that our ledger records as moved after its window (see reconcileAccount)
  const paidAfter = found.filter((f, i) => f && ['charge', 'refund'].includes(lines[i]!.type) && f.moved_at > window.to).map((f) => movementKey(f!));
  return { created, settlementId, matched: created ? matched : 0, exceptions, paidAfter };
}

/** Finds what a line names among our records, reading each payment once per payout. */
function resolver(account: ConnectorRecord, owner: Owner) {
  const related = new Map<string, ReturnType<typeof disputesStore.disputesAndRefundsOf>>();
  return async (line: PayoutLine): Promise<LedgerObject | undefined> => {
    if (!line.paymentReference || !['charge', 'refund', 'dispute'].includes(line.type)) return undefined;
    const named = await inbound.paymentIdByReference(account.id, line.paymentReference);
    const payment = named && (await payments.getStoredPayment(owner, named.paymentId));
    if (!payment) return undefined;
    const ids = { payment_id: payment.id, refund_id: null, dispute_id: null, currency: payment.currency, moved_at: capturedAt(payment) };
    if (line.type === 'charge') return payment.amount_captured > 0 ? { ...ids, amount: payment.amount_captured } : undefined;
    if (!related.has(payment.id)) related.set(payment.id, disputesStore.disputesAndRefundsOf(payment.id));
    const { refunds, disputes } = await related.get(payment.id)!;
    if (line.type === 'refund') {
      const refund = refunds.find((r) => r.provider_reference === line.source || r.id === line.refundId);
      return refund && { ...ids, refund_id: refund.id, amount: refund.amount, currency: refund.currency, moved_at: refund.created_at };
    }
    const dispute = disputes.find((d) => d.provider_reference === line.source);
    return dispute && { ...ids, dispute_id: dispute.id, amount: dispute.amount, currency: dispute.currency, moved_at: dispute.created_at };
  };
}

/**
 * The money our ledger moved at the account in `currency` within the window (after the previous payout's last second,
 * to the end of this one's), which this payout should carry: its payments' captures and its refunds (not failed).
 */
async function movementsIn(
  account: ConnectorRecord,
  owner: Owner,
  currency: string,
  window: { from: string; to: string },
): Promise<ExpectedMovement[]> {
  if (window.to <= window.from) return [];
  const inWindow = (at: string | undefined) => at !== undefined && at > window.from && at <= window.to;
  const filters = {
    currency,
    provider: account.provider,
    created_gte: Date.parse(window.from) - CAPTURE_WINDOW_MS,
    created_lte: Date.parse(window.to),
  };
  const movements: ExpectedMovement[] = [];
  for (let after: string | undefined, more = true; more;) {
    const page = await payments.listPayments(owner, filters, { limit: PAGE, starting_after: after });
    for (const listed of page.data.filter((p) => p.connector_id === account.id && p.amount_captured > 0)) {
      const payment = await payments.getStoredPayment(owner, listed.id);
      if (payment && inWindow(capturedAt(payment)))
        movements.push({ payment_id: payment.id, refund_id: null, amount: payment.amount_captured, currency: payment.currency });
    }
    after = page.data.at(-1)?.id;
    more = page.has_more;
  }
  const atAccount = new Map<string, boolean>();
  for (const refund of await reconciliationStore.refundsMadeBetween(owner, Date.parse(window.from), Date.parse(window.to))) {
    if (refund.status === 'failed' || refund.currency !== currency || !inWindow(refund.created_at)) continue;
    if (!atAccount.has(refund.payment_id))
      atAccount.set(refund.payment_id, (await payments.getStoredPayment(owner, refund.payment_id))?.connector_id === account.id);
    if (atAccount.get(refund.payment_id)) movements.push({ payment_id: refund.payment_id, refund_id: refund.id, amount: -refund.amount, currency });
  }
  return movements;
}

const capturedAt = (payment: payments.StoredPayment) =>
  payment.history?.find((entry) => entry.change === 'payment.captured')?.at ?? payment.updated_at;

/** One exception, its id derived from the payout and what it is: a run made again writes none twice. */
async function writeException(account: ConnectorRecord, owner: Owner, payout: ProviderPayout, settlementId: string, finding: Finding) {
  const what = [finding.kind, finding.source, finding.payment_id, finding.refund_id, finding.dispute_id].join('#');
  const id = idFor('reconciliationException', { at: Date.parse(payout.created), seed: `${account.id}#${payout.reference}#${what}` });
  const exception: ExceptionRecord = {
    id,
    merchant_id: owner.merchant_id,
    livemode: owner.livemode,
    ...finding,
    connector_id: account.id,
    provider_payout_id: payout.reference,
    settlement_id: settlementId,
    status: 'open',
    resolution: null,
    note: null,
    resolved_by: null,
    resolved_at: null,
    created_at: new Date(clock.now()).toISOString(),
  };
  return reconciliationStore.putException(exception, newEvent(owner, 'reconciliation.exception_created', exceptionView(exception)));
}

/** `POST /api/connectors/:id/reconcile`: the merchant's connector account of the key's mode (not a deleted one). */
export async function reconcileConnector(merchant: Merchant, connectorId: string): Promise<RunSummary> {
  const account = await connectorsStore.getShownConnector(ownerOf(merchant), connectorId);
  if (!account) throw new NotFound();
  return reconcileAccount(account);
}

/** A run of one connector account, as the daily job enqueues it. */
const ReconciliationMessage = v.object({ connector_id: v.string(), merchant_id: v.string(), livemode: v.boolean() });
export type ReconciliationMessage = v.InferOutput<typeof ReconciliationMessage>;

export const reconciliationsQueue = {
  send: (messages: ReconciliationMessage[]): Promise<void> => sendJson(config.RECONCILIATIONS_QUEUE_URL, 'reconciliations', messages),
};

/**
 * The daily job: one message per connector account (not deleted) whose provider has payouts to read. Each account is
 * then reconciled by the queue's worker on its own (a slow or failing provider holds up nobody; SQS retries it).
 */
export async function enqueueReconciliations(): Promise<{ accounts: number }> {
  const accounts = (await reconciliationStore.reconcilableAccounts()).filter((a) => a.status !== 'deleted');
  const messages = accounts.map((a) => ({ connector_id: a.id, merchant_id: a.owner.merchant_id, livemode: a.owner.livemode }));
  await reconciliationsQueue.send(messages);
  return { accounts: messages.length };
}

/** The queue's worker: one account's run (an account deleted meanwhile is skipped). */
export async function reconcileQueued(body: string): Promise<RunSummary | undefined> {
  const message = v.parse(ReconciliationMessage, JSON.parse(body));
  const account = await connectorsStore.getConnector({ merchant_id: message.merchant_id, livemode: message.livemode }, message.connector_id);
  if (!account || account.status === 'deleted') return undefined;
  return reconcileAccount(account);
}
