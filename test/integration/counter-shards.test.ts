import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as revenue } from '../../functions/analytics/revenue.ts';
import { handler as getBalance } from '../../functions/balance/get.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { counterKeys, LEGACY_COUNTER_SHARDS, writeShardKeys } from '../../shared/store/keys.ts';
import { foldCounterShards } from '../../shared/store/migrations/counter-shards.ts';
import { type WriteShards, writeShardsFor } from '../../shared/store/write-shards.ts';
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
    return (await Promise.all(queries)).reduce((n, out) => n + (out.Items?.length ?? 0), 0);
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

  it('keeps the balance exact when refunds draw on the cells the fold is moving', async () => {
    // Prepare
    const { merchant, made, read, cellsAboveShardZero } = await merchantWithTenShardCounters();
    // Act: six refunds of 400 (planned on the ten shards) while the fold runs
    const [fold, ...refunds] = await withCounterShards(unrecordedTable(), () =>
      Promise.all([
        foldCounterShards({ merchantIds: [merchant.merchantId] }),
        ...made.slice(0, 6).map((id) => payments.refund(merchant.apiKey, id, { amount: 400 })),
      ]),
    );
    const again = await foldCounterShards({ merchantIds: [merchant.merchantId] });
    const folded = await withCounterShards(await recordedTable(), read);
    // Assess
    expect(refunds.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(fold.folded + again.folded).toBeGreaterThan(0);
    expect(await cellsAboveShardZero()).toBe(0);
    expect(folded).toEqual({
      total: 12,
      pending: [{ amount: 8 * 1000 - 6 * 400, currency: 'EUR' }],
      available: [{ amount: 0, currency: 'EUR' }],
      revenue: 5600,
    });
  });

  it('folds nothing on a table that records its counter shards, as a new table does', async () => {
    // Prepare
    const key = floorKey();
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...key, shards: 3 } }));
    const table = await db.send(new GetCommand({ TableName: TABLE, Key: writeShardKeys.counterFloor(), ConsistentRead: true }));
    // Act
    const result = await foldCounterShards({ floor: key });
    // Assess
    expect(result).toEqual({ folded: 0, found: 3 });
    expect(table.Item?.shards).toBe(1);
  });
});
