import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as revenue } from '../../functions/analytics/revenue.ts';
import { handler as getBalance } from '../../functions/balance/get.ts';
import { handler as listSettlements } from '../../functions/settlements/list.ts';
import { releaseAndSettle } from '../../shared/domain/settlements.ts';
import { availableSortKey, balanceAdd, dayOf } from '../../shared/store/ledger.ts';
import { allBalanceCells } from '../../shared/store/settlements.ts';
import { db, TABLE, type TransactItem } from '../../shared/store/client.ts';
import { counterKeys, counterShardOf, LEGACY_COUNTER_SHARDS, writeShardKeys } from '../../shared/store/keys.ts';
import { foldCounterShards, recordCounterShards } from '../../shared/store/migrations/counter-shards.ts';
import { counterShards, type WriteShards, writeShardsFor } from '../../shared/store/write-shards.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { shardsRecordKey, withCounterShards } from '../support/shards.ts';

const floorKey = shardsRecordKey;
/** A table that has counter cells from before, and no record: reads cover the ten every write used. */
const unrecordedTable = () => writeShardsFor(1, floorKey(), async () => LEGACY_COUNTER_SHARDS);
/** A table whose record says one shard (a new table, or one folded). */
async function recordedTable(): Promise<WriteShards> {
  const key = floorKey();
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...key, shards: 1 } }));
  return writeShardsFor(1, key, async () => LEGACY_COUNTER_SHARDS);
}

/**
 * A merchant whose counters (analytics, revenue, balance, payment counts) were written over ten shards, as every
 * deployment wrote them before they followed PAYMENTS_PER_MINUTE: 12 payments of 1,000 EUR, 8 captured.
 */
async function merchantWithTenShardCounters() {
  const merchant = await newMerchant();
  const made: string[] = [];
  await withCounterShards(writeShardsFor(LEGACY_COUNTER_SHARDS, floorKey()), async () => {
    for (let i = 0; i < 12; i++) made.push((await payments.create(merchant.apiKey, paymentBody({ amount: 1000, currency: 'eur' }))).body.id);
    for (const id of made.slice(0, 8)) expect((await payments.capture(merchant.apiKey, id)).status).toBe(200);
  });
  const read = async () => {
    const headers = bearer(merchant.apiKey);
    const [list, balance, revenueOf] = await Promise.all([
      payments.list(merchant.apiKey),
      invokeHttp(getBalance, apiEvent({ method: 'GET', path: '/api/balance', headers })),
      invokeHttp(revenue, apiEvent({ method: 'GET', path: '/api/analytics/revenue', headers, query: { currency: 'EUR' } })),
    ]);
    return { total: list.body.total, pending: balance.body.pending, available: balance.body.available, revenue: revenueOf.body.total };
  };
  /** The cells above shard 0 that hold any amount, and every balance cell there (a fold empties the others) */
  const cellsAboveShardZero = async () => {
    const owner = testOwner(merchant.merchantId);
    const queries = ['PAY', 'REV', 'BAL', 'PAYN'].flatMap((kind) =>
      Array.from({ length: LEGACY_COUNTER_SHARDS - 1 }, (_, i) =>
        db.send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': counterKeys.shard(owner, kind, i + 1) },
            ConsistentRead: true,
          }),
        ),
      ),
    );
    const items = (await Promise.all(queries)).flatMap((out) => out.Items ?? []);
    const holdsAmount = (item: Record<string, unknown>) => Object.values(item).some((v) => typeof v === 'number' && v !== 0);
    return items.filter((item) => String(item.pk).includes('#BAL#') || holdsAmount(item)).length;
  };
  return { merchant, made, read, cellsAboveShardZero };
}

describe('counter cells written over ten shards before they followed PAYMENTS_PER_MINUTE', () => {
  it('are read over all ten while the table has no record, and folded into one shard by the migration', async () => {
    // Prepare
    const { merchant, made, read, cellsAboveShardZero } = await merchantWithTenShardCounters();
    for (const id of made.slice(0, 3)) expect((await payments.refund(merchant.apiKey, id, { amount: 250 })).status).toBe(200);
    const spread = await cellsAboveShardZero();
    // Act: read as a one-shard deployment on the table as it was, as if it had a record of one, then fold and read
    const unrecorded = await withCounterShards(unrecordedTable(), read);
    const withoutTheTen = await withCounterShards(writeShardsFor(1, floorKey()), read);
    const fold = await foldCounterShards({ merchantIds: [merchant.merchantId] });
    const folded = await withCounterShards(await recordedTable(), read);
    // Assess: exact before and after; the ten were needed before the fold, and none is left above shard 0
    const exact = {
      total: 12,
      pending: [{ amount: 8 * 1000 - 3 * 250, currency: 'EUR' }],
      available: [{ amount: 0, currency: 'EUR' }],
      revenue: 7250,
    };
    expect(spread).toBeGreaterThan(0);
    expect(unrecorded).toEqual(exact);
    expect(withoutTheTen.total).toBeLessThan(12);
    expect(fold.folded).toBe(spread);
    expect(await cellsAboveShardZero()).toBe(0);
    expect(folded).toEqual(exact);
  });

  it('keeps what is written to a cell between the fold reading it and moving its amounts', async () => {
    // Prepare: as the fold is about to move a revenue cell and a pending balance cell, a refund is counted on the one
    // (an amount the cell did not hold yet) and 100 is taken from the other
    const { merchant, read, cellsAboveShardZero } = await merchantWithTenShardCounters();
    const scope = `CNT#${merchant.merchantId}:test#`;
    const written: string[] = [];
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const items = context.commandName === 'TransactWriteItemsCommand' ? (args.input as { TransactItems: TransactItem[] }).TransactItems : [];
        for (const item of items) {
          const key = (item.Update ?? item.Delete)?.Key;
          const pk = String(key?.pk ?? '');
          const kind = pk.startsWith(scope) && counterShardOf(pk) > 0 ? pk.slice(scope.length).split('#')[0]! : '';
          const sk = String(key?.sk ?? '');
          if (kind === 'REV' && !written.includes('REV')) {
            written.push('REV');
            await db.send(
              new UpdateCommand({
                TableName: TABLE,
                Key: key,
                UpdateExpression: 'ADD refunded :r',
                ExpressionAttributeValues: { ':r': 300 },
              }),
            );
          }
          if (kind === 'BAL' && sk.includes('#pending#') && !written.includes('BAL')) {
            written.push('BAL');
            await db.send(
              new UpdateCommand({ TableName: TABLE, Key: key, UpdateExpression: 'ADD amount :x', ExpressionAttributeValues: { ':x': -100 } }),
            );
          }
        }
        return next(args);
      },
      { step: 'initialize', name: 'writeDuringTheFold' },
    );
    // Act
    try {
      await foldCounterShards({ merchantIds: [merchant.merchantId] });
    } finally {
      db.middlewareStack.remove('writeDuringTheFold');
    }
    const folded = await withCounterShards(await recordedTable(), read);
    // Assess: both writes counted, nothing left above shard 0
    expect(written.sort()).toEqual(['BAL', 'REV']);
    expect(await cellsAboveShardZero()).toBe(0);
    expect(folded).toEqual({
      total: 12,
      pending: [{ amount: 8 * 1000 - 100, currency: 'EUR' }],
      available: [{ amount: 0, currency: 'EUR' }],
      revenue: 8000 - 300,
    });
  });

  it('settles available funds that a version from before the fold left above the configured shards', async () => {
    // Prepare: 1,000 available on shard 0, and 300 taken on shard 5 after the fold by a function of the previous
    // version (a dispute's debit: a cell with no payments count)
    const { merchant } = await merchantWithTenShardCounters();
    const owner = testOwner(merchant.merchantId);
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          balanceAdd(owner, availableSortKey('USD'), { amount: 1000, payments: 2 }, 0),
          balanceAdd(owner, availableSortKey('USD'), { amount: -300 }, 5),
        ],
      }),
    );
    // Act: the daily job's release and settlement, on the balance cells its index lists for this merchant
    const cells = (await allBalanceCells()).filter((cell) => cell.merchant_id === merchant.merchantId);
    await releaseAndSettle(cells, dayOf(new Date().toISOString()));
    const headers = bearer(merchant.apiKey);
    const [settlements, balance] = await Promise.all([
      invokeHttp(listSettlements, apiEvent({ method: 'GET', path: '/api/settlements', headers })),
      invokeHttp(getBalance, apiEvent({ method: 'GET', path: '/api/balance', headers })),
    ]);
    // Assess: the settlement pays what the merchant has, not the 1,000 of the shard it reads
    expect(settlements.body.data.filter((s: { currency: string }) => s.currency === 'USD')).toMatchObject([{ amount: 700, status: 'pending' }]);
    expect(balance.body.available).toContainEqual({ amount: 0, currency: 'USD' });
  });

  it('records the shards where the table has none, and keeps a record already there', async () => {
    // Prepare
    const absent = floorKey();
    const there = floorKey();
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...there, shards: 10 } }));
    const table = await db.send(new GetCommand({ TableName: TABLE, Key: writeShardKeys.counterFloor(), ConsistentRead: true }));
    // Act
    const results = [await recordCounterShards(1, absent), await recordCounterShards(1, there)];
    // Assess: this runtime's new table records one shard; a record is written once and never lowered
    expect(table.Item?.shards).toBe(1);
    expect(results).toEqual([{ recorded: 1 }, { found: 10 }]);
    expect(
      await withCounterShards(
        writeShardsFor(1, there, async () => LEGACY_COUNTER_SHARDS),
        () => counterShards.forRead(),
      ),
    ).toBe(10);
  });
});
