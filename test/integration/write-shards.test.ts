import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as getBalance } from '../../functions/balance/get.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { clock } from '../../shared/model/clock.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { counterKeys, customerKeys, type Key, paymentKeys, shardOf } from '../../shared/store/keys.ts';
import { counterShards, type WriteShards, writeShards, writeShardsFor } from '../../shared/store/write-shards.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

/**
 * A merchant's lists (payments, customers) and counters written over more shards, as with PAYMENTS_PER_MINUTE above
 * 3,000. Each test records its shards under a key of its own, so no other test reads more shards because of it.
 */
async function withShards<T>(shards: WriteShards, act: () => Promise<T>): Promise<T> {
  const deployed = { lists: { ...writeShards }, counters: { ...counterShards } };
  Object.assign(writeShards, shards);
  Object.assign(counterShards, shards);
  try {
    return await act();
  } finally {
    Object.assign(writeShards, deployed.lists);
    Object.assign(counterShards, deployed.counters);
  }
}
const floorKey = (): Key => ({ pk: `TABLE#test-${randomUUID()}`, sk: 'WRITE_SHARDS' });
const recordedShards = async (key: Key) => (await db.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item?.shards;
const listedPartition = async (key: Key) => String((await db.send(new GetCommand({ TableName: TABLE, Key: key }))).Item?.gsi1pk);
const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((p) => p.id);

/** Pages through the whole list, `limit` at a time, newest first; then back from the oldest page to the newest. */
async function pageThrough(
  list: (query: Record<string, string>) => Promise<{ body: { data: Array<{ id: string }>; has_more: boolean } }>,
  limit: number,
) {
  const pages: string[][] = [];
  let after: string | undefined;
  let more = true;
  while (more) {
    const page = await list({ limit: String(limit), ...(after ? { starting_after: after } : {}) });
    pages.push(ids(page));
    after = ids(page).at(-1);
    more = page.body.has_more;
  }
  const back: string[][] = [];
  let before = pages.at(-1)![0];
  for (let i = 0; i < pages.length - 1; i++) {
    const page = await list({ limit: String(limit), ending_before: before! });
    back.unshift(ids(page));
    before = ids(page)[0];
  }
  return { forwards: pages.flat(), backwards: [...back.flat(), ...pages.at(-1)!] };
}

describe('writes spread over more shards', () => {
  it('pages the payments newest first in both directions, within a created range, and counts every match', async () => {
    // Prepare: 12 payments on 3 days, written over 10 shards
    const { apiKey } = await newMerchant();
    const key = floorKey();
    const day = (d: number) => Date.parse(`2026-04-0${d}T12:00:00.000Z`);
    const realNow = clock.now;
    const made = await withShards(writeShardsFor(10, key), async () => {
      const made: string[] = [];
      try {
        for (let i = 0; i < 12; i++) {
          clock.now = () => day(1 + Math.floor(i / 4)) + i;
          made.push((await payments.create(apiKey, paymentBody({ customer: { email: i % 2 ? 'odd@example.com' : 'even@example.com' } }))).body.id);
        }
      } finally {
        clock.now = realNow;
      }
      return made;
    });
    const newestFirst = [...made].reverse();
    // Act: read as a deployment with the limit lowered again (one shard configured) reads them
    const { listing, middleDay, middleDayPaged, pastTheRange, odd, partitions } = await withShards(writeShardsFor(1, key), async () => ({
      listing: await pageThrough((query) => payments.list(apiKey, query), 5),
      middleDay: await payments.list(apiKey, { 'created[gte]': '2026-04-02', 'created[lte]': '2026-04-02' }),
      middleDayPaged: await payments.list(apiKey, {
        'created[gte]': '2026-04-02',
        'created[lte]': '2026-04-02',
        starting_after: made[5]!,
        limit: '1',
      }),
      pastTheRange: await payments.list(apiKey, { 'created[gte]': '2026-04-02', starting_after: made[2]! }),
      odd: await payments.list(apiKey, { customer_email: 'odd@example.com', limit: '2' }),
      partitions: await Promise.all(made.map((id) => listedPartition(paymentKeys.item(id)))),
    }));
    // Assess: the entries are spread over several partitions, and every list reads them all in order
    expect(new Set(partitions).size).toBeGreaterThan(1);
    expect(await recordedShards(key)).toBe(10);
    expect(listing.forwards).toEqual(newestFirst);
    expect(listing.backwards).toEqual(newestFirst);
    expect(ids(middleDay)).toEqual(newestFirst.slice(4, 8));
    expect(ids(middleDayPaged)).toEqual([made[4]]);
    expect(middleDayPaged.body).toMatchObject({ has_more: false, total: 4 });
    expect(pastTheRange.body).toMatchObject({ data: [], has_more: false, total: 8 });
    expect(ids(odd)).toEqual([made[11], made[9]]);
    expect(odd.body).toMatchObject({ has_more: true, total: 6 });
  });

  it('misses the entries of higher shards without the record: the record is what keeps a lowered limit listing them', async () => {
    // Prepare: payments written over 10 shards
    const { apiKey } = await newMerchant();
    const key = floorKey();
    const made = await withShards(writeShardsFor(10, key), async () => {
      const made: string[] = [];
      for (let i = 0; i < 12; i++) made.push((await payments.create(apiKey, paymentBody())).body.id);
      return made;
    });
    // Act: one shard configured, reading the record; and one shard configured with no record at all
    const withRecord = await withShards(writeShardsFor(1, key), () => payments.list(apiKey, { limit: '100' }));
    const withoutRecord = await withShards(writeShardsFor(1, floorKey()), () => payments.list(apiKey, { limit: '100' }));
    // Assess
    expect(ids(withRecord)).toHaveLength(12);
    const inShardZero = made.filter((id) => shardOf(id, 10) === 0);
    expect(ids(withoutRecord).sort()).toEqual(inShardZero.sort());
    expect(inShardZero.length).toBeLessThan(12);
  });

  it('only ever raises the recorded shards', async () => {
    const key = floorKey();
    await writeShardsFor(4, key).forWrite();
    await writeShardsFor(10, key).forWrite();
    await writeShardsFor(2, key).forWrite();
    await writeShardsFor(1, key).forWrite();
    expect(await recordedShards(key)).toBe(10);
    expect(await writeShardsFor(3, key).forRead()).toBe(10);
    expect(await writeShardsFor(12, key).forRead()).toBe(12);
    expect(await writeShardsFor(1, floorKey()).forRead()).toBe(1);
  });

  it('pages the customers newest first in both directions', async () => {
    // Prepare: 9 customers (and the merchant's demo one) written over 10 shards
    const { apiKey, customerId } = await newMerchant();
    const key = floorKey();
    const create = (email: string) =>
      invokeHttp(createCustomer, apiEvent({ method: 'POST', path: '/api/customers', headers: bearer(apiKey), body: { email } }));
    const list = (query: Record<string, string>) =>
      invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers: bearer(apiKey), query }));
    const made = [customerId];
    await withShards(writeShardsFor(10, key), async () => {
      for (let i = 0; i < 9; i++) made.push((await create(`c${i}@example.com`)).body.id);
    });
    // Act
    const listing = await withShards(writeShardsFor(1, key), () => pageThrough(list, 4));
    const partitions = await Promise.all(made.map((id) => listedPartition(customerKeys.item(id))));
    // Assess
    expect(new Set(partitions).size).toBeGreaterThan(1);
    expect(listing.forwards).toEqual([...made].reverse());
    expect(listing.backwards).toEqual([...made].reverse());
  });

  it('keeps the balance and the list total exact with counters over 20 shards, after the limit is lowered too', async () => {
    // Prepare: 16 payments of 1,000 with counters over 20 shards; 10 captured, 4 of those refunded 300 each
    const merchant = await newMerchant();
    const { apiKey } = merchant;
    const key = floorKey();
    const balance = () => invokeHttp(getBalance, apiEvent({ method: 'GET', path: '/api/balance', headers: bearer(apiKey) }));
    await withShards(writeShardsFor(20, key), async () => {
      const made: string[] = [];
      for (let i = 0; i < 16; i++) made.push((await payments.create(apiKey, paymentBody({ amount: 1000, currency: 'eur' }))).body.id);
      for (const id of made.slice(0, 10)) expect((await payments.capture(apiKey, id)).status).toBe(200);
      for (const id of made.slice(0, 4)) expect((await payments.refund(apiKey, id, { amount: 300 })).status).toBe(200);
    });
    // Act: read as a deployment with one shard configured, with the record and without
    const [withRecord, withRecordBalance] = await withShards(writeShardsFor(1, key), () => Promise.all([payments.list(apiKey), balance()]));
    const withoutRecord = await withShards(writeShardsFor(1, floorKey()), () => payments.list(apiKey));
    const countCells = (shard: number) =>
      db.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': counterKeys.shard(testOwner(merchant.merchantId), 'PAYN', shard) },
        }),
      );
    const cellsAbove = (await Promise.all(Array.from({ length: 10 }, (_, i) => countCells(10 + i)))).flatMap((out) => out.Items ?? []);
    // Assess: some counts went to shards the default never writes; every read covering them adds up exactly
    expect(cellsAbove.length).toBeGreaterThan(0);
    expect(withRecord.body.total).toBe(16);
    expect(withRecordBalance.body.pending).toEqual([{ amount: 10 * 1000 - 4 * 300, currency: 'EUR' }]);
    expect(withRecordBalance.body.available).toEqual([{ amount: 0, currency: 'EUR' }]);
    expect(withoutRecord.body.total).toBeLessThan(16);
  });
});
