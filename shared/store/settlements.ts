import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { DomainEvent } from '../model/events.ts';
import type { Transition } from '../model/state-machines.ts';
import { db, TABLE, type TransactItem } from './client.ts';
import { commit } from './commit.ts';
import type { Target } from '../model/targets.ts';
import { equalityFilter, ownerCondition } from './expressions.ts';
import { Int, nullable, picklistOf, recordReader, Text } from './item-schemas.ts';
import { counterShards } from './write-shards.ts';
import { BALANCE_INDEX_SHARDS, counterKeys, counterShardOf, ledgerSortKeys, ownerOfItem, settlementKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { balanceAdd, type BalanceCell, balanceCellOf } from './ledger.ts';
import { acrossShards, listPage, merchantList, type Page, type PageQuery, queryAll } from './pagination.ts';

export type { BalanceCell };

export interface SettlementRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  amount: number;
  currency: string;
  status: 'pending' | 'paid';
  arrival_date: string;
  /** payments whose captured funds it carries */
  transactions: number;
  created_at: string;
  paid_at: string | null;
  /** a provider's payout (reconciliation); absent on the sandbox's simulated settlements */
  payout?: PayoutSettlement;
}

/** What a settlement made from a provider's payout adds: the account, the payout, its real fees and its lines. */
export interface PayoutSettlement {
  connector_id: string;
  provider_payout_id: string;
  gross: number;
  fees: number;
  lines: Array<{
    type: 'charge' | 'refund' | 'dispute' | 'fee' | 'adjustment';
    amount: number;
    fee: number;
    net: number;
    source: string;
    payment_id: string | null;
    refund_id: string | null;
    dispute_id: string | null;
  }>;
}

const PayoutItem = v.object({
  connector_id: Text,
  provider_payout_id: Text,
  gross: Int,
  fees: Int,
  lines: v.array(
    v.object({
      type: picklistOf<PayoutSettlement['lines'][number]['type']>()(['charge', 'refund', 'dispute', 'fee', 'adjustment']),
      amount: Int,
      fee: Int,
      net: Int,
      source: Text,
      payment_id: nullable(Text),
      refund_id: nullable(Text),
      dispute_id: nullable(Text),
    }),
  ),
});

/** The settlement as the table holds it, checked when read back (see item-schemas.ts). */
const SettlementItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  amount: Int,
  currency: Text,
  status: picklistOf<SettlementRecord['status']>()(['pending', 'paid']),
  arrival_date: Text,
  transactions: Int,
  created_at: Text,
  paid_at: nullable(Text),
  payout: v.optional(PayoutItem),
});
const settlementOf: (item: Record<string, unknown>) => SettlementRecord = recordReader('settlement', SettlementItem);

const settlementTarget = (s: SettlementRecord): Target => ({
  entity: 'settlement',
  id: s.id,
  owner: { merchant_id: s.merchant_id, livemode: s.livemode },
});

/** Every balance cell of every merchant, from the sparse balance index: what the daily job works on. */
export async function allBalanceCells(): Promise<BalanceCell[]> {
  return acrossShards(BALANCE_INDEX_SHARDS, async (indexShard) =>
    (
      await queryAll({
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': counterKeys.balanceIndexPartition(indexShard) },
      })
    ).map((item) => balanceCellOf(ownerOfItem(item), counterShardOf(String(item.pk)), String(item.sk), item)),
  );
}

/**
 * The condition that a cell still holds what was read. A cell only ever taken from or given back to (a dispute, a
 * refund beyond the balance) has no `payments`, read as 0.
 */
const cellHolds = (cell: BalanceCell) => ({
  expression: `amount = :held AND ${cell.payments === 0 ? '(attribute_not_exists(payments) OR payments = :heldPayments)' : 'payments = :heldPayments'}`,
  values: { ':held': cell.amount, ':heldPayments': cell.payments },
});

/**
 * Releases a pending cell's funds: deletes the cell (if unchanged) and adds its amount to available funds on the
 * same shard, atomically (on one of the configured shards, after the limit was lowered: no write adds to a shard
 * above them). False when the cell changed meanwhile.
 */
export async function releaseCell(cell: BalanceCell): Promise<boolean> {
  const hold = cellHolds(cell);
  const released = await commit({
    writes: [],
    counters: [
      {
        Delete: {
          TableName: TABLE,
          Key: counterKeys.cell(cell, 'BAL', cell.shard, ledgerSortKeys.balance(cell)),
          ConditionExpression: hold.expression,
          ExpressionAttributeValues: hold.values,
        },
      },
      balanceAdd(
        cell,
        ledgerSortKeys.available(cell.currency),
        { amount: cell.amount, payments: cell.payments },
        cell.shard % counterShards.configured,
      ),
    ],
  });
  return released === 'committed';
}

/**
 * Creates the day's settlement of a merchant and currency, taking the funds of the cells it sweeps in the same
 * transaction (each conditioned on still holding what was read). The day marker makes a second run of the same
 * day a no-op. False when it already exists or a cell changed meanwhile.
 */
export async function putSettlement(settlement: SettlementRecord, day: string, swept: readonly BalanceCell[]): Promise<boolean> {
  const owner = { merchant_id: settlement.merchant_id, livemode: settlement.livemode };
  const takes = swept
    .filter((c) => c.amount !== 0 || c.payments !== 0)
    .map((c) => balanceAdd(c, ledgerSortKeys.balance(c), { amount: -c.amount, payments: -c.payments }, c.shard, cellHolds(c)));
  const created = await commit({
    writes: [
      { create: { entity: 'settlement_day', owner, day, currency: settlement.currency }, item: { settlement_id: settlement.id } },
      { create: settlementTarget(settlement), item: { ...settlement, ...settlementKeys.pendingIndex(settlement.arrival_date, settlement.id) } },
    ],
    counters: takes,
  });
  return created === 'committed';
}

/**
 * A settlement made from a provider's payout, once (its id is derived from the payout: a second run is refused), with
 * its event (`settlement.paid` when the payout has arrived; else it waits for its arrival date in the pending index)
 * and its counters (what leaves the account's held funds, the fees booked). False when it exists already.
 */
export async function putPayoutSettlement(settlement: SettlementRecord, events: DomainEvent[], counters: TransactItem[]): Promise<boolean> {
  const pending = settlement.status === 'pending' ? settlementKeys.pendingIndex(settlement.arrival_date, settlement.id) : {};
  const created = await commit({ writes: [{ create: settlementTarget(settlement), item: { ...settlement, ...pending } }], events, counters });
  return created === 'committed';
}

/** The settlement with this id, whoever owns it (a run's own, derived id), or undefined. */
export async function settlementExists(id: string): Promise<boolean> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: settlementKeys.item(id), ProjectionExpression: 'pk' }));
  return out.Item !== undefined;
}

/** Settlements whose arrival date has come and that are still pending. */
export async function arrivedSettlements(today: string): Promise<SettlementRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :until',
    ExpressionAttributeValues: { ':pk': settlementKeys.pendingPartition, ':until': settlementKeys.pendingThrough(today) },
  });
  return items.map(settlementOf);
}

/** The owner's settlements still waiting for their arrival date (one query of the pending index, filtered). */
export async function pendingSettlementsOf(owner: Owner): Promise<SettlementRecord[]> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': settlementKeys.pendingPartition };
  const owned = ownerCondition(owner, names, values);
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    FilterExpression: owned,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
  return items.map(settlementOf);
}

/** `pay` (SETTLEMENT) with its `settlement.paid` event, once: the settlement leaves the pending index. */
export async function markSettlementPaid(settlement: SettlementRecord, pay: Transition, paidAt: string, event: DomainEvent): Promise<boolean> {
  const paid = await commit({
    writes: [{ update: settlementTarget(settlement), transition: pay, set: { paid_at: paidAt }, unset: ['gsi2pk', 'gsi2sk'] }],
    events: [event],
  });
  return paid === 'committed';
}

/** The owner's settlement; one of another merchant or mode is none. */
export async function getSettlement(owner: Owner, id: string): Promise<SettlementRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: settlementKeys.item(id) }));
  const settlement = out.Item && settlementOf(out.Item);
  return settlement?.merchant_id === owner.merchant_id && settlement.livemode === owner.livemode ? settlement : undefined;
}

export async function listSettlements(owner: Owner, status: string | undefined, page: PageQuery): Promise<Page<SettlementRecord>> {
  const result = await listPage(merchantList(settlementKeys, owner, equalityFilter({ status })), page);
  return { data: result.data.map(settlementOf), has_more: result.has_more };
}
