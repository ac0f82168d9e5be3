import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, TABLE } from './client.ts';
import type { Key } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import type { IndexName } from './table-definition.ts';

export interface PageQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** An item as the table returns it: repositories parse it into their record (see item-schemas.ts). */
export type Item = Record<string, unknown>;

export interface ListSpec {
  index?: IndexName;
  /** The key condition over the partition (and optionally a sort key prefix). */
  partition: { name: string; value: string };
  /** `from`/`to` inclusive, `above`/`below` exclusive (a cursor) */
  sortKey: { name: string; prefix?: string; from?: string; to?: string; above?: string; below?: string };
  /** The full exclusive start key (table + index keys) of the item with this id; ids are ULIDs, so this needs no read. */
  cursorKey: (id: string) => Item;
  filter?: Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;
  /** a strongly consistent read (table only): a small set the merchant just changed, such as routing rules */
  consistent?: boolean;
}

/** The key builders of an entity listed per owner (a merchant in one mode) on gsi1 (see keys.ts). */
export interface MerchantListKeys {
  item: (id: string) => Key;
  list: (owner: Owner, id: string) => { gsi1pk: string; gsi1sk: string };
  listPartition: (owner: Owner) => string;
}

/** An owner's list of one entity on gsi1 (ids are ULIDs: newest first), optionally filtered. */
export const merchantList = (keys: MerchantListKeys, owner: Owner, filter?: ListSpec['filter']): ListSpec => ({
  index: 'gsi1',
  partition: { name: 'gsi1pk', value: keys.listPartition(owner) },
  sortKey: { name: 'gsi1sk' },
  cursorKey: (id) => ({ ...keys.item(id), ...keys.list(owner, id) }),
  filter,
});

/** An owner's list written over several gsi1 partitions (a write-sharded list, see keys.ts): one range per partition. */
export const shardedList = (partitions: readonly string[], filter?: ListSpec['filter']): RangeSpec[] =>
  partitions.map((value) => ({ index: 'gsi1', partition: { name: 'gsi1pk', value }, sortKey: { name: 'gsi1sk' }, filter }));

/**
 * The key builders of a small set kept in its owner's own partition (see keys.ts): API keys by merchant id, rules,
 * webhooks and connectors by owner.
 */
export interface MerchantSetKeys<O extends string | Owner = Owner> {
  item: (owner: O, id: string) => Key;
  listPrefix: (owner: O) => { pk: string; skPrefix: string };
}

/**
 * A merchant's small set, by sort-key prefix in its partition (ids are ULIDs: newest first). `consistent` for a set
 * the merchant changes through the API and reads back at once.
 */
export function merchantSet<O extends string | Owner>(keys: MerchantSetKeys<O>, owner: O, options: { consistent?: boolean } = {}): ListSpec {
  const { pk, skPrefix } = keys.listPrefix(owner);
  return {
    partition: { name: 'pk', value: pk },
    sortKey: { name: 'sk', prefix: skPrefix },
    cursorKey: (id) => keys.item(owner, id),
    consistent: options.consistent,
  };
}

/** Every item of a merchant's small set, newest first. */
export function merchantSetItems(keys: MerchantSetKeys, owner: Owner, options: { consistent?: boolean } = {}): Promise<Item[]> {
  return queryAll({ ...rangeQuery(merchantSet(keys, owner, options)).query, ConsistentRead: options.consistent, ScanIndexForward: false });
}

/** Every item a query matches, reading page after page. */
export async function queryAll(query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const out = await db.send(new QueryCommand({ TableName: TABLE, ...query, ExclusiveStartKey: startKey }));
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** What `read` returns for every shard 0 … shards-1 (read in parallel), joined. */
export async function acrossShards<T>(shards: number, read: (shard: number) => Promise<readonly T[]>): Promise<T[]> {
  return (await Promise.all(Array.from({ length: shards }, (_, shard) => read(shard)))).flat();
}

/**
 * Newest-first cursor pagination: `starting_after` pages towards older items, `ending_before` towards newer ones.
 * Keeps querying while a filter thins out the pages, so `limit` is honoured exactly.
 */
export async function listPage(spec: ListSpec, page: PageQuery): Promise<Page<Item>> {
  const backwards = page.ending_before !== undefined;
  const cursor = page.ending_before ?? page.starting_after;
  const items = await readRange(spec, page.limit + 1, backwards, cursor ? spec.cursorKey(cursor) : undefined);
  return pageOf(items, page.limit, backwards);
}

/**
 * `listPage` over a list written across several partitions (a write-sharded index, see keys.ts), sorted by ids
 * (ULIDs): each partition is read past the cursor, in parallel, a share of the page at a time, and the reads are
 * merged. A partition is read further only while what it may still hold could come before the page's end, so a page
 * over ten partitions reads about a page of items, not ten.
 */
export async function listPageAcross(specs: readonly RangeSpec[], page: PageQuery): Promise<Page<Item>> {
  const backwards = page.ending_before !== undefined;
  const cursor = page.ending_before ?? page.starting_after;
  const bound = cursor === undefined ? {} : backwards ? { above: cursor } : { below: cursor };
  const wanted = page.limit + 1;
  const share = Math.min(wanted, Math.ceil(wanted / specs.length) + 1);
  const sortKeyOf = (item: Item) => String(item[specs[0]!.sortKey.name]);
  /** < 0: `a` comes first in the page (newest first; oldest first going backwards) */
  const order = (a: Item, b: Item) => (sortKeyOf(a) === sortKeyOf(b) ? 0 : (sortKeyOf(a) < sortKeyOf(b) ? 1 : -1) * (backwards ? -1 : 1));
  const reads = specs.map((spec) => ({
    spec,
    range: rangeQuery({ ...spec, sortKey: { ...spec.sortKey, ...bound } }),
    items: [] as Item[],
    next: undefined as Item | undefined,
    done: false,
    chunk: share,
  }));
  for (const read of reads) read.done = read.range.empty;
  let merged: Item[] = [];
  let unread = reads.filter((read) => !read.done);
  while (unread.length > 0) {
    await Promise.all(
      unread.map(async (read) => {
        const chunk = await readChunk(read.range, read.chunk, backwards, read.next, read.spec.consistent);
        read.items.push(...chunk.items);
        read.next = chunk.next;
        read.done = chunk.next === undefined;
        read.chunk = nextChunk(read.spec, read.chunk);
      }),
    );
    merged = reads.flatMap((read) => read.items).sort(order);
    const end = merged[wanted - 1];
    unread = reads.filter((read) => !read.done && (end === undefined || read.items.length === 0 || order(read.items.at(-1)!, end) < 0));
  }
  return pageOf(merged.slice(0, wanted), page.limit, backwards);
}

export type RangeSpec = Omit<ListSpec, 'cursorKey'>;

/**
 * How many items a read of a range evaluates in one query: first what the page wants, as without a filter, so a filter
 * most items pass (a common status or currency) costs what an unfiltered page does. A filter may keep few of them: a
 * filtered read then doubles with each further query, up to 1,000 (about DynamoDB's 1 MB a query), so a rare match far
 * back in a long list costs a few dozen round trips rather than thousands (DynamoDB bills what it evaluates, so those
 * units are the same). The price: the last query may evaluate more than the page needed, at most as many as the
 * queries before it together, and never more than 1,000.
 */
const nextChunk = (spec: RangeSpec, chunk: number) => (spec.filter ? Math.min(chunk * 2, FILTERED_MAX_CHUNK) : chunk);
const FILTERED_MAX_CHUNK = 1000;

/** Up to `wanted` items of a range, newest first (oldest first when `ascending`), from `startKey`. */
async function readRange(spec: RangeSpec, wanted: number, ascending: boolean, startKey?: Item): Promise<Item[]> {
  const range = rangeQuery(spec);
  if (range.empty) return [];
  const items: Item[] = [];
  let next = startKey;
  let limit = wanted;
  do {
    const chunk = await readChunk(range, limit, ascending, next, spec.consistent);
    items.push(...chunk.items);
    next = chunk.next;
    limit = nextChunk(spec, limit);
  } while (next && items.length < wanted);
  return items.slice(0, wanted);
}

/** One query of a range: up to `limit` items evaluated (a filter may keep fewer), and where the next one starts. */
async function readChunk(range: Range, limit: number, ascending: boolean, startKey: Item | undefined, consistent: boolean | undefined) {
  const out = await db.send(
    new QueryCommand({ ...range.query, ScanIndexForward: ascending, ConsistentRead: consistent, ExclusiveStartKey: startKey, Limit: limit }),
  );
  return { items: (out.Items ?? []).filter(range.inRange), next: out.LastEvaluatedKey };
}

/** A page of `limit` from items read one past it, in the list's order (newest first). */
function pageOf(items: Item[], limit: number, backwards: boolean): Page<Item> {
  const data = items.slice(0, limit);
  return { data: backwards ? data.reverse() : data, has_more: items.length > limit };
}

/** How many items match (filters included): a COUNT query over the key range, paged, reading no attributes out. */
export async function countItems(spec: RangeSpec): Promise<number> {
  const { query, empty } = rangeQuery(spec);
  if (empty) return 0;
  let count = 0;
  let startKey: Item | undefined;
  do {
    const out = await db.send(new QueryCommand({ ...query, Select: 'COUNT', ExclusiveStartKey: startKey }));
    count += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/**
 * The query over a spec's key range (and filter), without paging. `empty`: the bounds leave nothing to read.
 * `inRange`: false for an item on an exclusive end of a BETWEEN (a cursor inside a created range), which the key
 * condition cannot leave out itself.
 */
interface Range {
  query: QueryCommandInput;
  empty: boolean;
  inRange: (item: Item) => boolean;
}
function rangeQuery(spec: RangeSpec): Range {
  const { condition, names, values, lower, upper } = keyCondition(spec);
  const sortKeyOf = (item: Item) => String(item[spec.sortKey.name]);
  const empty =
    lower !== undefined &&
    upper !== undefined &&
    (lower.value > upper.value || (lower.value === upper.value && (lower.exclusive || upper.exclusive)));
  const query: QueryCommandInput = {
    TableName: TABLE,
    IndexName: spec.index,
    KeyConditionExpression: condition,
    FilterExpression: spec.filter?.FilterExpression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  const inRange = (item: Item) => !(lower?.exclusive && sortKeyOf(item) === lower.value) && !(upper?.exclusive && sortKeyOf(item) === upper.value);
  return { query, empty, inRange };
}

/** One end of a sort-key range. */
interface Bound {
  value: string;
  exclusive: boolean;
}

/** The tighter of two lower (`lower`) or upper ends; at the same value, the exclusive one. */
function tighter(a: Bound | undefined, b: Bound | undefined, lower: boolean): Bound | undefined {
  if (!a || !b) return a ?? b;
  if (a.value === b.value) return { value: a.value, exclusive: a.exclusive || b.exclusive };
  return a.value > b.value === lower ? a : b;
}

const bound = (value: string | undefined, exclusive: boolean): Bound | undefined => (value === undefined ? undefined : { value, exclusive });

function keyCondition(spec: RangeSpec) {
  const names: Record<string, string> = { '#p': spec.partition.name, ...spec.filter?.ExpressionAttributeNames };
  const values: Record<string, unknown> = { ':p': spec.partition.value, ...spec.filter?.ExpressionAttributeValues };
  let condition = '#p = :p';
  const { name, prefix, from, to, above, below } = spec.sortKey;
  // DynamoDB takes one sort-key condition: a cursor bound cannot be combined with begins_with
  if ((above ?? below) !== undefined && prefix !== undefined) throw new Error('A list read has both a cursor bound and a sort-key prefix');
  const lower = tighter(bound(from, false), bound(above, true), true);
  const upper = tighter(bound(to, false), bound(below, true), false);
  if (prefix !== undefined || lower || upper) names['#s'] = name;
  if (prefix !== undefined) {
    values[':s'] = prefix;
    condition += ' AND begins_with(#s, :s)';
  } else if (lower && upper) {
    Object.assign(values, { ':from': lower.value, ':to': upper.value });
    condition += ' AND #s BETWEEN :from AND :to';
  } else if (lower) {
    values[':from'] = lower.value;
    condition += ` AND #s ${lower.exclusive ? '>' : '>='} :from`;
  } else if (upper) {
    values[':to'] = upper.value;
    condition += ` AND #s ${upper.exclusive ? '<' : '<='} :to`;
  }
  return { condition, names, values, lower, upper };
}
