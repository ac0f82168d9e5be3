import { logger } from '../logger.ts';
import type { PageQuery } from '../store/pagination.ts';
import * as ledger from '../store/ledger.ts';
import type { BalanceCell } from '../store/ledger.ts';
import * as settlementsStore from '../store/settlements.ts';
import type { SettlementRecord } from '../store/settlements.ts';
import { clock, isoNow } from '../model/clock.ts';
import { NotFound } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { newId } from '../model/ids.ts';
import { type Merchant, ownerOf } from './auth.ts';
import * as keys from '../store/keys.ts';
import type { Owner } from '../model/targets.ts';
import { allows, SETTLEMENT } from '../model/state-machines.ts';
import { csvDocument } from './csv-export.ts';

const DAY_MS = 86_400_000;
/** Captured funds stay pending this many days, and a settlement arrives this many days after it is made. */
export const HOLD_DAYS = 2;

const addDays = (day: string, n: number) => ledger.dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString());

/** A settlement as lists show it: a simulated one has no connector, no fees (gross = net = amount). */
const summary = (s: SettlementRecord) => ({
  id: s.id,
  object: 'settlement' as const,
  livemode: s.livemode,
  amount: s.amount,
  currency: s.currency,
  status: s.status,
  arrival_date: s.arrival_date,
  transactions: s.transactions,
  connector_id: s.payout?.connector_id ?? null,
  provider_payout_id: s.payout?.provider_payout_id ?? null,
  gross: s.payout?.gross ?? s.amount,
  fees: s.payout?.fees ?? 0,
  net: s.amount,
  created_at: s.created_at,
  paid_at: s.paid_at,
});

/** A settlement as it is read alone (and in its events): with its lines. */
export const settlementView = (s: SettlementRecord) => ({ ...summary(s), lines: s.payout?.lines ?? [] });
const view = settlementView;

export async function getSettlement(merchant: Merchant, id: string) {
  const settlement = await settlementsStore.getSettlement(ownerOf(merchant), id);
  if (!settlement) throw new NotFound();
  return view(settlement);
}

const CSV_COLUMNS = [
  'settlement_id',
  'provider_payout_id',
  'type',
  'source',
  'amount',
  'fee',
  'net',
  'currency',
  'payment_id',
  'refund_id',
  'dispute_id',
];

/**
 * A settlement's lines as CSV for a finance team's books: one row per line, amounts in minor units (negative: taken
 * from the payout, written as numbers), our ids beside the provider's (text cells neutralized: csv-export.ts). A
 * simulated settlement has the header only.
 */
export async function settlementLinesCsv(merchant: Merchant, id: string): Promise<string> {
  const settlement = await settlementsStore.getSettlement(ownerOf(merchant), id);
  if (!settlement) throw new NotFound();
  const payoutId = settlement.payout?.provider_payout_id ?? null;
  const rows = (settlement.payout?.lines ?? []).map((l) => [
    settlement.id,
    payoutId,
    l.type,
    l.source,
    l.amount,
    l.fee,
    l.net,
    settlement.currency,
    l.payment_id,
    l.refund_id,
    l.dispute_id,
  ]);
  return csvDocument(CSV_COLUMNS, rows);
}

export async function listSettlements(merchant: Merchant, status: string | undefined, page: PageQuery) {
  const result = await settlementsStore.listSettlements(ownerOf(merchant), status, page);
  return { object: 'list' as const, data: result.data.map(summary), has_more: result.has_more };
}

/**
 * The daily job, safe to run twice a day: (1) funds captured at least two days ago move from pending to available;
 * (2) one settlement per merchant and currency sweeps the available funds (status pending, arriving in two days);
 * (3) settlements whose arrival date has come are paid, each with a `settlement.paid` event.
 */
export async function runDailySettlement(): Promise<{ released: number; settled: number; paid: number }> {
  const today = ledger.dayOf(new Date(clock.now()).toISOString());
  const { released, settled } = await releaseAndSettle(await settlementsStore.allBalanceCells(), today);

  const paid = await payOut(await settlementsStore.arrivedSettlements(today));
  logger.info('Daily settlement run', { today, released, settled, paid });
  return { released, settled, paid };
}

/** Step (3): pays the settlements, each once with its `settlement.paid` event. */
async function payOut(settlements: readonly SettlementRecord[]): Promise<number> {
  let paid = 0;
  const pay = SETTLEMENT.pay;
  for (const settlement of settlements) {
    if (!allows(SETTLEMENT, 'pay', settlement.status)) continue;
    const paidAt = isoNow();
    const event = newEvent(settlement, pay.event, view({ ...settlement, status: pay.to, paid_at: paidAt }));
    if (await settlementsStore.markSettlementPaid(settlement, pay, paidAt, event)) {
      paid++;
    }
  }
  return paid;
}

/** Steps (1) and (2) of the daily job for one merchant in one mode, as the job would run them on `day`. */
export async function settleMerchant(owner: Owner, day: string): Promise<{ released: number; settled: number }> {
  return releaseAndSettle(await ledger.readBalanceCells(owner), day);
}

/** The whole daily job for one merchant in one mode on `day` (a test clock's day): steps (1), (2) and (3). */
export async function runSettlementDay(owner: Owner, day: string): Promise<{ released: number; settled: number; paid: number }> {
  const { released, settled } = await settleMerchant(owner, day);
  const paid = await payOut((await settlementsStore.arrivedSettlements(day)).filter((s) => keys.ownedBy(s, owner)));
  return { released, settled, paid };
}

/** The first day on or after `from` on which the daily job has something to do for the owner, if any. */
export async function nextSettlementDay(owner: Owner, from: string): Promise<string | undefined> {
  const [cells, arriving] = await Promise.all([ledger.readBalanceCells(owner), settlementsStore.pendingSettlementsOf(owner)]);
  const days = [
    ...cells.flatMap((c) => (c.bucket === 'pending' && c.amount !== 0 ? [addDays(c.captureDay, HOLD_DAYS)] : [])),
    ...(cells.some((c) => c.bucket === 'available' && c.amount > 0) ? [from] : []),
    ...arriving.map((s) => s.arrival_date),
  ].map((day) => (day < from ? from : day));
  return days.sort()[0];
}

/** Moves pending cells captured at least HOLD_DAYS before `today` to available, then settles every account once. */
export async function releaseAndSettle(cells: readonly BalanceCell[], today: string): Promise<{ released: number; settled: number }> {
  const releaseThrough = addDays(today, -HOLD_DAYS);
  let released = 0;
  for (const cell of cells) {
    if (cell.bucket !== 'pending' || !cell.captureDay || cell.captureDay > releaseThrough) continue;
    if (await settlementsStore.releaseCell(cell)) released++;
  }

  let settled = 0;
  const accounts = new Map(
    cells.map((c) => [
      `${c.merchant_id} ${c.livemode} ${c.currency}`,
      { owner: { merchant_id: c.merchant_id, livemode: c.livemode }, currency: c.currency },
    ]),
  );
  for (const { owner, currency } of accounts.values()) if (await settle(owner, currency, today)) settled++;
  return { released, settled };
}

/** Sweeps an owner's available funds in one currency into today's settlement (at most one a day per mode). */
async function settle(owner: Owner, currency: string, today: string): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const cells = await ledger.readBalanceCells(owner, { availableIn: currency });
    const amount = cells.reduce((n, c) => n + c.amount, 0);
    if (amount <= 0) return false;
    const settlement: SettlementRecord = {
      id: newId('settlement'),
      merchant_id: owner.merchant_id,
      livemode: owner.livemode,
      amount,
      currency,
      status: 'pending',
      arrival_date: addDays(today, HOLD_DAYS),
      transactions: cells.reduce((n, c) => n + c.payments, 0),
      created_at: isoNow(),
      paid_at: null,
    };
    if (await settlementsStore.putSettlement(settlement, today, cells)) return true;
  }
  return false;
}
