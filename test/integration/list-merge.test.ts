import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, TABLE } from '../../shared/store/client.ts';
import { type Item, listPageAcross, type PageQuery, shardedList } from '../../shared/store/pagination.ts';
import { watchingDb } from '../support/db-calls.ts';

/** A list of `sizes[i]` entries in partition i, ids interleaved across the partitions in a shuffled order. */
async function writtenList(sizes: readonly number[], rare: (n: number) => boolean = () => false) {
  const list = `TEST#${randomUUID()}`;
  const partitions = sizes.map((_, i) => `${list}#${i}`);
  const shardOf = sizes.flatMap((size, shard) => Array<number>(size).fill(shard)).sort(() => Math.random() - 0.5);
  const entries = shardOf.map((shard, n) => ({
    pk: `${list}#${n}`,
    sk: 'ENTRY',
    gsi1pk: partitions[shard],
    gsi1sk: `id_${String(n).padStart(4, '0')}`,
    kind: rare(n) ? 'rare' : 'common',
  }));
  for (let i = 0; i < entries.length; i += 25)
    await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: entries.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  return {
    ranges: shardedList(partitions),
    rareRanges: shardedList(partitions, { FilterExpression: 'kind = :rare', ExpressionAttributeValues: { ':rare': 'rare' } }),
    commonRanges: shardedList(partitions, { FilterExpression: 'kind = :common', ExpressionAttributeValues: { ':common': 'common' } }),
    newestFirst: entries.map((e) => e.gsi1sk).reverse(),
    rareNewestFirst: entries
      .filter((e) => e.kind === 'rare')
      .map((e) => e.gsi1sk)
      .reverse(),
  };
}

/** How many items the queries `read` makes evaluate (what DynamoDB bills a query for, whatever its filter keeps). */
async function evaluatedBy(read: () => Promise<unknown>): Promise<number> {
  let evaluated = 0;
  await watchingDb(({ output }) => (evaluated += Number(output.ScannedCount ?? 0)), read);
  return evaluated;
}

const idsOf = (items: Item[]) => items.map((item) => String(item.gsi1sk));

/** Every page, `limit` at a time, forwards to the end and then backwards to the start. */
async function pagesOf(ranges: ReturnType<typeof shardedList>, limit: number) {
  const forwards: string[][] = [];
  let query: PageQuery = { limit };
  for (;;) {
    const page = await listPageAcross(ranges, query);
    forwards.push(idsOf(page.data));
    if (!page.has_more) break;
    query = { limit, starting_after: forwards.at(-1)!.at(-1)! };
  }
  const backwards: string[][] = [forwards.at(-1)!];
  while (backwards.length < forwards.length) {
    const page = await listPageAcross(ranges, { limit, ending_before: backwards[0]![0]! });
    backwards.unshift(idsOf(page.data));
  }
  return { forwards, backwards };
}

describe('a page merged from several partitions', () => {
  it.each([
    ['evenly spread', [4, 4, 4, 4, 4, 4, 4, 4, 4, 4]],
    ['nearly all in one partition', [30, 1, 0, 2, 0, 0, 1, 0, 0, 1]],
    ['all in the last partition', [0, 0, 0, 0, 0, 0, 0, 0, 0, 25]],
    ['one partition', [17]],
  ])('pages %s newest first, both ways, whatever the page size', async (_, sizes) => {
    // Prepare
    const { ranges, newestFirst } = await writtenList(sizes);
    for (const limit of [1, 3, 7, 100]) {
      // Act
      const { forwards, backwards } = await pagesOf(ranges, limit);
      // Assess: every entry once, in order; going back gives the same pages
      expect(forwards.flat()).toEqual(newestFirst);
      expect(forwards.slice(0, -1).every((page) => page.length === limit)).toBe(true);
      expect(backwards).toEqual(forwards);
    }
  });

  it.each([
    ['one partition', [1500]],
    ['three partitions', [500, 500, 500]],
  ])('finds the few entries a filter keeps far back in a long list (%s), in order, both ways', async (_, sizes) => {
    // Prepare: of 1,500 entries, the filter keeps the oldest, one in the middle and one near the newest end
    const { rareRanges, rareNewestFirst } = await writtenList(sizes, (n) => n === 0 || n === 700 || n === 1490);
    expect(rareNewestFirst).toHaveLength(3);
    for (const limit of [1, 2, 10]) {
      // Act
      const { forwards, backwards } = await pagesOf(rareRanges, limit);
      // Assess
      expect(forwards.flat()).toEqual(rareNewestFirst);
      expect(backwards).toEqual(forwards);
    }
  });

  it.each([
    ['one partition', [300]],
    ['three partitions', [100, 100, 100]],
  ])('reads about a page for a filter most entries pass (%s), as for no filter', async (_, sizes) => {
    // Prepare: one entry in ten is rare, so the filter on common keeps nine in ten
    const { ranges, commonRanges } = await writtenList(sizes, (n) => n % 10 === 0);
    // Act
    let page: Awaited<ReturnType<typeof listPageAcross>> | undefined;
    const unfiltered = await evaluatedBy(() => listPageAcross(ranges, { limit: 10 }));
    const filtered = await evaluatedBy(async () => (page = await listPageAcross(commonRanges, { limit: 10 })));
    // Assess: a full page of matches, for at most three times what the unfiltered page read (it read 50 or more)
    expect(page!.data).toHaveLength(10);
    expect(page!.data.every((item) => item.kind === 'common')).toBe(true);
    expect(filtered).toBeLessThanOrEqual(3 * unfiltered);
    expect(filtered).toBeLessThan(50);
  });
});
