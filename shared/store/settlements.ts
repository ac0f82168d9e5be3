import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DomainEvent } from '../domain/events.ts';
import { conditionalWrite, db, TABLE, type TransactItem } from './client.ts';
import { eventPut } from './events.ts';
import { equalityFilter } from './expressions.ts';
import { COUNTER_SHARDS, counterKeys, settlementKeys } from './keys.ts';
import { listPage, merchantList, type Page, type PageQuery } from './pagination.ts';

export interface SettlementRecord {
  id: string;
  merchant_id: string;
  amount: number;
  currency: string;
  status: 'pending' | 'paid';
  arrival_date: string;
  /** payments whose captured funds it carries */
  transactions: number;
  created_at: string;
  paid_at: string | null;
}

export interface BalanceCell {
  merchant_id: string;
  sk: string;
  shard: number;
  amount: number;
  payments: number;
}

/** Every balance cell of every merchant, from the sparse balance index: what the daily job works on. */
export async function allBalanceCells(): Promise<BalanceCell[]> {
  const shards = await Promise.all(
    Array.from({ length: COUNTER_SHARDS }, async (_, indexShard) => {
      const cells: BalanceCell[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await db.send(
          new QueryCommand({
            TableName: TABLE,
            IndexName: 'gsi2',
            KeyConditionExpression: 'gsi2pk = :pk',
            ExpressionAttributeValues: { ':pk': counterKeys.balanceIndexPartition(indexShard) },
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of out.Items ?? []) {
          cells.push({
            merchant_id: String(item.merchant_id),
            sk: String(item.sk),
            shard: Number(String(item.pk).split('#').at(-1)),
            amount: Number(item.amount ?? 0),
            payments: Number(item.payments ?? 0),
          });
        }
        startKey = out.LastEvaluatedKey;
      } while (startKey);
      return cells;
    }),
  );
  return shards.flat();
}

/** The condition that a cell still holds what was read. */
export const cellHolds = (cell: BalanceCell) => ({
  expression: 'amount = :held AND payments = :heldPayments',
  values: { ':held': cell.amount, ':heldPayments': cell.payments },
});

/** Moves released funds: deletes the pending cell (if unchanged) and adds it to available, atomically. */
export async function releaseCell(cell: BalanceCell, toAvailable: TransactItem): Promise<boolean> {
  const hold = cellHolds(cell);
  return conditionalWrite(
    new TransactWriteCommand({
      TransactItems: [
        {
          Delete: {
            TableName: TABLE,
            Key: counterKeys.cell(cell.merchant_id, 'BAL', cell.shard, cell.sk),
            ConditionExpression: hold.expression,
            ExpressionAttributeValues: hold.values,
          },
        },
        toAvailable,
      ],
    }),
  );
}

/**
 * Creates the day's settlement of a merchant and currency, taking the available cells it sweeps in the same
 * transaction. The day marker makes a second run of the same day a no-op. False when it already exists or a
 * cell changed meanwhile.
 */
export async function putSettlement(settlement: SettlementRecord, day: string, takes: TransactItem[]): Promise<boolean> {
  return conditionalWrite(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: { ...settlementKeys.daily(settlement.merchant_id, day, settlement.currency), type: 'settlement_day', settlement_id: settlement.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: TABLE,
            Item: {
              ...settlementKeys.item(settlement.id),
              ...settlementKeys.list(settlement.merchant_id, settlement.id),
              ...settlementKeys.pendingIndex(settlement.arrival_date, settlement.id),
              type: 'settlement',
              ...settlement,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...takes,
      ],
    }),
  );
}

/** Settlements whose arrival date has come and that are still pending. */
export async function arrivedSettlements(today: string): Promise<SettlementRecord[]> {
  const out: SettlementRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :until',
        ExpressionAttributeValues: { ':pk': settlementKeys.pendingPartition, ':until': `${today}#~` },
        ExclusiveStartKey: startKey,
      }),
    );
    out.push(...((page.Items ?? []) as SettlementRecord[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return out;
}

/** pending → paid with its `settlement.paid` event, once. */
export async function markSettlementPaid(settlement: SettlementRecord, paidAt: string, event: DomainEvent): Promise<boolean> {
  return conditionalWrite(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: TABLE,
            Key: settlementKeys.item(settlement.id),
            UpdateExpression: 'SET #status = :paid, paid_at = :at REMOVE gsi2pk, gsi2sk',
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':paid': 'paid', ':pending': 'pending', ':at': paidAt },
          },
        },
        eventPut(event),
      ],
    }),
  );
}

export async function getSettlement(merchantId: string, id: string): Promise<SettlementRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: settlementKeys.item(id) }));
  const item = out.Item as SettlementRecord | undefined;
  return item?.merchant_id === merchantId ? item : undefined;
}

export async function listSettlements(merchantId: string, status: string | undefined, page: PageQuery): Promise<Page<SettlementRecord>> {
  return listPage<SettlementRecord>(
    merchantList(settlementKeys, merchantId, equalityFilter({ status })),
    page,
  );
}
