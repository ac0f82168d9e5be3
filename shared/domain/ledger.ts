import { type CounterCell, counterAdd, randomShard, readCells } from '../store/counters.ts';
import type { TransactItem } from '../store/client.ts';
import { COUNTER_SHARDS, counterKeys } from '../store/keys.ts';
import type { PaymentRecord } from '../store/payments.ts';
import type { ProviderName } from '../providers/types.ts';

/**
 * The counters every money movement writes in its own transaction: authorization outcomes (analytics), captured
 * and refunded amounts per day (revenue) and the balance (pending by capture day, available).
 *
 * Sort keys: PAY `<day>#<currency>`, PROV `<day>#<currency>#<provider>`, REV `<day>#<currency>`,
 * BAL `<currency>#pending#<capture day>` and `<currency>#available` (amount, payments).
 */
export const dayOf = (iso: string): string => iso.slice(0, 10);

export interface AttemptOutcome {
  provider: ProviderName;
  approved: boolean;
  latencyMs: number;
}

/** A payment's create: one outcome for the payment, one per provider tried. */
export function authorizationCounters(payment: PaymentRecord, attempts: readonly AttemptOutcome[]): TransactItem[] {
  const day = dayOf(payment.created_at);
  const approved = payment.status === 'succeeded' ? 1 : 0;
  return [
    counterAdd(payment.merchant_id, 'PAY', `${day}#${payment.currency}`, { attempts: 1, approvals: approved, volume: approved * payment.amount }),
    ...attempts.map((a) =>
      counterAdd(payment.merchant_id, 'PROV', `${day}#${payment.currency}#${a.provider}`, {
        attempts: 1,
        approvals: a.approved ? 1 : 0,
        volume: a.approved ? payment.amount : 0,
        latency_sum: a.latencyMs,
      }),
    ),
  ];
}

export const pendingSortKey = (currency: string, captureDay: string) => `${currency}#pending#${captureDay}`;
export const availableSortKey = (currency: string) => `${currency}#available`;

/** A balance cell write; balance cells also carry the job's discovery index. */
export function balanceAdd(
  merchantId: string,
  sortKey: string,
  values: Record<string, number>,
  shard = randomShard(),
  condition?: { expression: string; values: Record<string, unknown> },
): TransactItem {
  return counterAdd(merchantId, 'BAL', sortKey, values, { shard, set: counterKeys.balanceIndex(merchantId, sortKey, shard), condition });
}

/** A capture: revenue, and pending funds on the capture day. */
export function captureCounters(merchantId: string, currency: string, amount: number, day: string): TransactItem[] {
  return [
    counterAdd(merchantId, 'REV', `${day}#${currency}`, { captured: amount }),
    balanceAdd(merchantId, pendingSortKey(currency, day), { amount, payments: 1 }),
  ];
}

/**
 * A refund: revenue, and the balance taken from available funds first, then from pending ones (newest first); what
 * neither covers (money already settled) leaves available negative. Each touched cell is conditioned on still
 * holding what the plan read, so a concurrent change makes the caller plan again; cells of one bucket are tried in
 * random shard order, so concurrent refunds draw on different cells.
 */
export async function refundCounters(merchantId: string, currency: string, amount: number, day: string): Promise<TransactItem[]> {
  const cells = shuffled(await readCells(merchantId, 'BAL', `${currency}#`, `${currency}#~`));
  const take = (cell: CounterCell, x: number) =>
    balanceAdd(merchantId, cell.sk, { amount: -x }, cell.shard, { expression: 'amount >= :x', values: { ':x': x } });
  const items: TransactItem[] = [counterAdd(merchantId, 'REV', `${day}#${currency}`, { refunded: amount })];
  let rest = amount;
  const available = cells.filter((c) => c.sk === availableSortKey(currency) && (c.values.amount ?? 0) > 0);
  const pending = cells.filter((c) => c.sk.startsWith(`${currency}#pending#`) && (c.values.amount ?? 0) > 0).sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
  const drawnAvailableShards = new Set<number>();
  for (const cell of [...available, ...pending]) {
    if (rest === 0) break;
    const x = Math.min(rest, cell.values.amount!);
    items.push(take(cell, x));
    if (cell.sk === availableSortKey(currency)) drawnAvailableShards.add(cell.shard);
    rest -= x;
  }
  // What no cell covers leaves available negative, on a shard not already in this transaction (one item, one write).
  if (rest > 0) {
    const free = Array.from({ length: COUNTER_SHARDS }, (_, shard) => shard).filter((shard) => !drawnAvailableShards.has(shard));
    const shard = free[Math.floor(Math.random() * free.length)];
    if (shard !== undefined) items.push(balanceAdd(merchantId, availableSortKey(currency), { amount: -rest }, shard));
    else return unplannedRefundCounters(merchantId, currency, amount, day); // every shard drawn: record it unplanned
  }
  return items;
}

/**
 * A refund's counters without a plan: the whole amount from available funds, which may go negative until pending
 * funds are released into it. Totals stay exact; used when planned takes keep losing to concurrent refunds.
 */
export const unplannedRefundCounters = (merchantId: string, currency: string, amount: number, day: string): TransactItem[] => [
  counterAdd(merchantId, 'REV', `${day}#${currency}`, { refunded: amount }),
  balanceAdd(merchantId, availableSortKey(currency), { amount: -amount }),
];

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
