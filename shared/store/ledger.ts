import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import type { TransactItem } from './client.ts';
import { type CounterCell, counterAdd, randomShard, readCells, sumBySortKey } from './counters.ts';
import { type BalanceBucket, counterKeys, ledgerSortKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import type { PaymentRecord } from './payments.ts';

/**
 * The counters every money movement writes in its own transaction: authorization outcomes (analytics), captured
 * and refunded amounts per day (revenue) and the balance (pending by capture day, available). Their cells are
 * built here (sort keys in keys.ts), and read back as parsed records: no caller sees a key.
 */
export const dayOf = (iso: string): string => iso.slice(0, 10);

export interface AttemptOutcome {
  provider: ProviderName;
  approved: boolean;
  latencyMs: number;
}

/**
 * A payment's create: one cell of the day and currency (one write) with the payment's outcome and, beside it, its
 * attempts at each provider tried (`<provider>_attempts`, …: see `providerField`).
 */
export function authorizationCounters(payment: PaymentRecord, attempts: readonly AttemptOutcome[]): TransactItem[] {
  const approved = payment.status === 'succeeded' ? 1 : 0;
  const byProvider = [...perProvider(attempts)].flatMap(([provider, a]) =>
    Object.entries({ attempts: a.attempts, approvals: a.approvals, volume: a.approvals * payment.amount, latency_sum: a.latency_sum }).map(
      ([field, value]) => [providerField(provider, field), value] as const,
    ),
  );
  return [
    counterAdd(payment, 'PAY', ledgerSortKeys.daily(dayOf(payment.created_at), payment.currency), {
      attempts: 1,
      approvals: approved,
      volume: approved * payment.amount,
      ...Object.fromEntries(byProvider),
    }),
  ];
}

/** The attribute of a provider's attempt counts in a daily outcome cell: `stripe_attempts`, `adyen_latency_sum`, … */
const providerField = (provider: string, field: string) => `${provider}_${field}`;

/** Attempts summed per provider: two accounts of one provider tried for one payment add to one cell (one write). */
function perProvider(attempts: readonly AttemptOutcome[]) {
  const sums = new Map<string, { attempts: number; approvals: number; latency_sum: number }>();
  for (const a of attempts) {
    const sum = sums.get(a.provider) ?? { attempts: 0, approvals: 0, latency_sum: 0 };
    sums.set(a.provider, { attempts: sum.attempts + 1, approvals: sum.approvals + (a.approved ? 1 : 0), latency_sum: sum.latency_sum + a.latencyMs });
  }
  return sums;
}

export const pendingSortKey = ledgerSortKeys.pending;
export const availableSortKey = ledgerSortKeys.available;

/**
 * Whose money a movement is: the owner's, and the connector account that holds the payment (absent or null: the
 * built-in sandbox). A connector account's money is held there (`held` cells) until its provider pays it out, which
 * reconciliation books; the sandbox's is pending, then available, then settled by the daily job.
 */
export type LedgerAccount = Owner & { connector_id?: string | null };
const heldAt = (account: LedgerAccount, currency: string) => (account.connector_id ? ledgerSortKeys.held(currency, account.connector_id) : undefined);

/** A balance cell write; balance cells also carry the job's discovery index. */
export function balanceAdd(
  owner: Owner,
  sortKey: string,
  values: Record<string, number>,
  shard = randomShard(),
  condition?: { expression: string; values: Record<string, unknown> },
): TransactItem {
  return counterAdd(owner, 'BAL', sortKey, values, { shard, set: counterKeys.balanceIndex(owner, sortKey, shard), condition });
}

/** A capture: revenue, and pending funds on the capture day (or held at the payment's connector account). */
export function captureCounters(owner: LedgerAccount, currency: string, amount: number, day: string): TransactItem[] {
  return [
    counterAdd(owner, 'REV', ledgerSortKeys.daily(day, currency), { captured: amount }),
    balanceAdd(owner, heldAt(owner, currency) ?? pendingSortKey(currency, day), { amount, payments: 1 }),
  ];
}

/**
 * A refund: revenue, and the balance taken from available funds first, then from pending ones (newest first); what
 * neither covers (money already settled) leaves available negative. Each touched cell is conditioned on still
 * holding what the plan read, so a concurrent change makes the caller plan again; cells of one bucket are tried in
 * random shard order, so concurrent refunds draw on different cells.
 */
export async function refundCounters(owner: LedgerAccount, currency: string, amount: number, day: string): Promise<TransactItem[]> {
  if (heldAt(owner, currency)) return unplannedRefundCounters(owner, currency, amount, day);
  const range = ledgerSortKeys.balances(currency);
  const cells = shuffled(await readCells(owner, 'BAL', range.from, range.to));
  const available = cells.filter((c) => c.sk === availableSortKey(currency) && (c.values.amount ?? 0) > 0);
  const pending = cells
    .filter((c) => ledgerSortKeys.parseBalance(c.sk).bucket === 'pending' && (c.values.amount ?? 0) > 0)
    .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
  const takes: Array<{ cell: CounterCell; x: number }> = [];
  let rest = amount;
  for (const cell of [...available, ...pending]) {
    if (rest === 0) break;
    const x = Math.min(rest, cell.values.amount!);
    takes.push({ cell, x });
    rest -= x;
  }
  const items: TransactItem[] = [counterAdd(owner, 'REV', ledgerSortKeys.daily(day, currency), { refunded: amount })];
  // What no cell covers leaves available negative: taken with the first available cell drawn (one item, one write),
  // or from an available cell of its own.
  const drawnAvailable = takes.find((t) => t.cell.sk === availableSortKey(currency));
  for (const { cell, x } of takes) {
    const more = rest > 0 && cell === drawnAvailable?.cell ? rest : 0;
    items.push(balanceAdd(owner, cell.sk, { amount: -(x + more) }, cell.shard, { expression: 'amount >= :x', values: { ':x': x } }));
  }
  if (rest > 0 && !drawnAvailable) items.push(balanceAdd(owner, availableSortKey(currency), { amount: -rest }));
  return items;
}

/**
 * A refund's counters without a plan: the whole amount from available funds, which may go negative until pending
 * funds are released into it. Totals stay exact; used when planned takes keep losing to concurrent refunds.
 */
export const unplannedRefundCounters = (owner: LedgerAccount, currency: string, amount: number, day: string): TransactItem[] => [
  counterAdd(owner, 'REV', ledgerSortKeys.daily(day, currency), { refunded: amount }),
  balanceAdd(owner, heldAt(owner, currency) ?? availableSortKey(currency), { amount: -amount }),
];

/** A refund that failed after its counters were written: the money is back in available funds (and revenue). */
export const refundReversalCounters = (owner: LedgerAccount, currency: string, amount: number, day: string): TransactItem[] => [
  counterAdd(owner, 'REV', ledgerSortKeys.daily(day, currency), { refunded: -amount }),
  balanceAdd(owner, heldAt(owner, currency) ?? availableSortKey(currency), { amount }),
];

/** A capture the provider failed after all: its revenue and the pending funds of its capture day are taken back. */
export const captureReversalCounters = (owner: LedgerAccount, currency: string, amount: number, captureDay: string): TransactItem[] => [
  counterAdd(owner, 'REV', ledgerSortKeys.daily(captureDay, currency), { captured: -amount }),
  balanceAdd(owner, heldAt(owner, currency) ?? pendingSortKey(currency, captureDay), { amount: -amount, payments: -1 }),
];

/**
 * A dispute's money: `amount` > 0 takes it out of available funds when the dispute opens (the provider debits it
 * at once; available may go negative until pending funds are released), < 0 gives it back when it is won.
 */
export const disputeCounters = (owner: LedgerAccount, currency: string, amount: number, day: string): TransactItem[] => [
  counterAdd(owner, 'REV', ledgerSortKeys.daily(day, currency), { disputed: amount }),
  balanceAdd(owner, heldAt(owner, currency) ?? availableSortKey(currency), { amount: -amount }),
];

/**
 * A provider's payout reconciled: what it carried leaves the connector account's held funds (`paidOut`, the amounts
 * our ledger had for the lines it matched), and the fees it took are booked per day (`fees` of the REV cells).
 */
export function payoutCounters(
  owner: Owner,
  connectorId: string,
  currency: string,
  paidOut: number,
  feesByDay: ReadonlyMap<string, number>,
): TransactItem[] {
  return [
    ...(paidOut !== 0 ? [balanceAdd(owner, ledgerSortKeys.held(currency, connectorId), { amount: -paidOut })] : []),
    ...[...feesByDay].filter(([, fees]) => fees !== 0).map(([day, fees]) => counterAdd(owner, 'REV', ledgerSortKeys.daily(day, currency), { fees })),
  ];
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Subscription recovery (RCV cells, per day and currency): a renewal's first decline counts `failed` and its amount
 * under its decline code on the day it failed; the same period paid later counts `recovered` and its amount under
 * that first code on the day it was paid. Fields: `<field>:<decline code>`.
 */
export const recoveryCounters = (
  owner: Owner,
  day: string,
  currency: string,
  declineCode: string,
  outcomes: readonly ('failed' | 'recovered')[],
  amount: number,
) => [
  counterAdd(
    owner,
    'RCV',
    ledgerSortKeys.daily(day, currency),
    Object.fromEntries(outcomes.flatMap((o) => [[`${o}:${declineCode}`, 1] as const, [`${o}_amount:${declineCode}`, amount] as const])),
  ),
];

/** A day's recovery counts in one currency, by decline code. */
export interface RecoveryRow {
  day: string;
  currency: string;
  byCode: Record<string, { failed: number; failed_amount: number; recovered: number; recovered_amount: number }>;
}

export async function readRecovery(owner: Owner, fromDay: string, toDay: string): Promise<RecoveryRow[]> {
  const range = ledgerSortKeys.days(fromDay, toDay);
  const sums = sumBySortKey(await readCells(owner, 'RCV', range.from, range.to));
  return [...sums].map(([sk, cell]) => {
    const byCode: RecoveryRow['byCode'] = {};
    for (const [field, value] of Object.entries(cell)) {
      const [name, code] = field.split(':') as [keyof RecoveryRow['byCode'][string], string | undefined];
      if (!code) continue;
      byCode[code] ??= { failed: 0, failed_amount: 0, recovered: 0, recovered_amount: 0 };
      byCode[code][name] = value;
    }
    return { ...ledgerSortKeys.parseDaily(sk), byCode };
  });
}

/** A day's payment outcomes in one currency (PAY cells), summed across shards. */
export interface OutcomeRow {
  day: string;
  currency: string;
  attempts: number;
  approvals: number;
  volume: number;
}

/** A day's authorization attempts at one provider in one currency (from the PAY cells), summed across shards. */
export interface ProviderOutcomeRow extends OutcomeRow {
  provider: string;
  latency_sum: number;
}

/** A day's captured, refunded and disputed amounts and the providers' fees, in one currency (REV cells), summed across shards. */
export interface RevenueRow {
  day: string;
  currency: string;
  captured: number;
  refunded: number;
  disputed: number;
  fees: number;
}

/** One shard's cell of an owner's balance: funds available or pending since a capture day. */
export type BalanceCell = BalanceBucket & Owner & { shard: number; amount: number; payments: number };

/** The cells of `kind` over whole days, summed across shards: each row its parsed sort key and the named amounts. */
async function readDays<P, F extends string>(
  owner: Owner,
  kind: 'PAY' | 'REV',
  days: { from: string; to: string },
  parse: (sk: string) => P,
  fields: readonly F[],
): Promise<Array<P & Record<F, number>>> {
  const range = ledgerSortKeys.days(days.from, days.to);
  const sums = sumBySortKey(await readCells(owner, kind, range.from, range.to));
  return [...sums].map(([sk, v]) => ({ ...parse(sk), ...(Object.fromEntries(fields.map((f) => [f, v[f] ?? 0])) as Record<F, number>) }));
}

const OUTCOME_FIELDS = ['attempts', 'approvals', 'volume'] as const;

export const readOutcomes = (owner: Owner, fromDay: string, toDay: string): Promise<OutcomeRow[]> =>
  readDays(owner, 'PAY', { from: fromDay, to: toDay }, ledgerSortKeys.parseDaily, OUTCOME_FIELDS);

/** The payments' outcomes (as `readOutcomes`) and, per provider, the attempts counted beside them: one read of the daily cells. */
export async function readProviderOutcomes(
  owner: Owner,
  fromDay: string,
  toDay: string,
): Promise<{ payments: OutcomeRow[]; providers: ProviderOutcomeRow[] }> {
  const range = ledgerSortKeys.days(fromDay, toDay);
  const daily = sumBySortKey(await readCells(owner, 'PAY', range.from, range.to));
  const payments: OutcomeRow[] = [];
  const providers: ProviderOutcomeRow[] = [];
  for (const [sk, cell] of daily) {
    const { day, currency } = ledgerSortKeys.parseDaily(sk);
    const value = (field: string, provider?: string) => cell[provider ? providerField(provider, field) : field] ?? 0;
    payments.push({ day, currency, attempts: value('attempts'), approvals: value('approvals'), volume: value('volume') });
    for (const provider of PROVIDERS.filter((p) => value('attempts', p) > 0)) {
      const of = (field: string) => value(field, provider);
      providers.push({
        day,
        currency,
        provider,
        attempts: of('attempts'),
        approvals: of('approvals'),
        volume: of('volume'),
        latency_sum: of('latency_sum'),
      });
    }
  }
  return { payments, providers };
}

export const readRevenue = (owner: Owner, fromDay: string, toDay: string): Promise<RevenueRow[]> =>
  readDays(owner, 'REV', { from: fromDay, to: toDay }, ledgerSortKeys.parseDaily, ['captured', 'refunded', 'disputed', 'fees']);

/** The merchant's balance cells (of one currency, or only its available ones), one per shard and bucket. */
export async function readBalanceCells(owner: Owner, only: { currency?: string; availableIn?: string } = {}): Promise<BalanceCell[]> {
  const range = only.availableIn
    ? { from: availableSortKey(only.availableIn), to: availableSortKey(only.availableIn) }
    : ledgerSortKeys.balances(only.currency);
  return (await readCells(owner, 'BAL', range.from, range.to)).map((c) => balanceCellOf(owner, c.shard, c.sk, c.values));
}

/** A balance cell as read from the table: the merchant and shard, its sort key parsed, its amounts. */
export const balanceCellOf = (owner: Owner, shard: number, sk: string, values: Record<string, unknown>): BalanceCell => ({
  ...ledgerSortKeys.parseBalance(sk),
  merchant_id: owner.merchant_id,
  livemode: owner.livemode,
  shard,
  amount: Number(values.amount ?? 0),
  payments: Number(values.payments ?? 0),
});
