import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { scanTable } from './scan.ts';
import { conditionalWrite, db, TABLE, type TransactItem } from '../client.ts';
import { counterAdd, type CounterKind } from '../counters.ts';
import { counterKeys, counterShardOf, type Key, type Owner, writeShardKeys } from '../keys.ts';
import { counterShards } from '../write-shards.ts';

/**
 * `npm run migrate:counter-shards`: counter cells were written over ten shards (more above 30,000 payments a minute)
 * before they followed PAYMENTS_PER_MINUTE, and while the table has no record of the counters' shards every read
 * covers those. This moves the amounts of each cell on a shard at or above the configured ones
 * (`counterShards.configured`, one up to 3,000 a minute) to the cell of the same sort key on shard
 * `shard % configured`, then records that many shards where the table has no record yet, so reads cover only them.
 * A move is one transaction that ADDs the amounts read to the one cell and takes them from the other, so whatever
 * else writes to either meanwhile is kept; the cell is read again until it holds nothing (it stays, empty). Run it
 * once the deploy is done, and again where functions of the previous version may have written since (each run moves
 * what it finds); safe while the API serves. `merchantIds` moves those merchants' cells only and records nothing.
 */
export async function foldCounterShards(
  options: { merchantIds?: readonly string[] } = {},
): Promise<{ folded: number; recorded?: number; found?: number }> {
  const shards = counterShards.configured;
  let folded = 0;
  for await (const cell of cellsAbove(shards, options.merchantIds)) {
    await fold(cell, cell.shard % shards);
    folded++;
  }
  if (options.merchantIds?.length) return { folded };
  return { folded, ...(await recordCounterShards(shards)) };
}

/**
 * Records `shards` as the counters' shards where the table has no record yet. A record already there stays: an
 * earlier run wrote it, or a container did before its first write to more shards (a limit over 3,000 a minute: ten
 * at least, covering the cells from before), and reads cover what it says.
 */
export async function recordCounterShards(
  shards: number,
  floor: Key = writeShardKeys.counterFloor(),
): Promise<{ recorded?: number; found?: number }> {
  const put = new PutCommand({ TableName: TABLE, Item: { ...floor, shards }, ConditionExpression: 'attribute_not_exists(shards)' });
  if (await conditionalWrite(put)) return { recorded: shards };
  const existing = await db.send(new GetCommand({ TableName: TABLE, Key: floor, ConsistentRead: true }));
  return { found: Number(existing.Item?.shards) };
}

interface Cell {
  key: Key;
  owner: Owner;
  kind: CounterKind;
  shard: number;
  values: Record<string, number>;
}

/** Every counter cell on shard `shards` or above that holds an amount, and every balance cell there. */
async function* cellsAbove(shards: number, merchantIds?: readonly string[]): AsyncGenerator<Cell> {
  const cells = scanTable(
    { FilterExpression: 'begins_with(pk, :cnt)', ExpressionAttributeValues: { ':cnt': 'CNT#' }, ConsistentRead: true },
    merchantIds,
  );
  for await (const item of cells) {
    const cell = cellOf(item);
    if (cell.shard >= shards && (!isEmpty(cell) || cell.kind === 'BAL')) yield cell;
  }
}

/** A cell as stored: `CNT#<merchant>[:test]#<kind>#<shard>`, its amounts every number it holds. */
function cellOf(item: Record<string, unknown>): Cell {
  const [, scope = '', kind = ''] = String(item.pk).split('#');
  const values: Record<string, number> = {};
  for (const [k, v] of Object.entries(item)) if (typeof v === 'number' && k !== 'expires_at') values[k] = v;
  return {
    key: { pk: String(item.pk), sk: String(item.sk) },
    owner: { merchant_id: scope.replace(/:test$/, ''), livemode: !scope.endsWith(':test') },
    kind: kind as CounterKind,
    shard: counterShardOf(String(item.pk)),
    values,
  };
}

const isEmpty = (cell: Cell) => Object.values(cell.values).every((v) => v === 0);

/**
 * Moves one cell's amounts to shard `to`, until it holds nothing: a write between the read and the move stays behind
 * and is moved next. A cell deleted meanwhile (a release moves a pending cell's funds itself) is left gone; an empty
 * balance cell is deleted, so the daily job's index no longer lists it (its only amounts are `amount` and `payments`).
 */
async function fold(cell: Cell, to: number): Promise<void> {
  for (let current: Cell | undefined = cell; current;) {
    if (!isEmpty(current)) {
      const taken = Object.fromEntries(Object.entries(current.values).map(([field, v]) => [field, -v]));
      const exists = { expression: 'attribute_exists(pk)', values: {} };
      const takeFrom = counterAdd(current.owner, current.kind, current.key.sk, taken, { shard: current.shard, condition: exists });
      await conditionalWrite(new TransactWriteCommand({ TransactItems: [takeFrom, addTo(current, to, current.values)] }));
    } else if (current.kind !== 'BAL' || (await conditionalWrite(removeEmptyBalance(current.key)))) return;
    const { Item: now } = await db.send(new GetCommand({ TableName: TABLE, Key: cell.key, ConsistentRead: true }));
    current = now ? cellOf(now) : undefined;
  }
}

const removeEmptyBalance = (key: Key) =>
  new DeleteCommand({
    TableName: TABLE,
    Key: key,
    ConditionExpression: '(attribute_not_exists(amount) OR amount = :zero) AND (attribute_not_exists(payments) OR payments = :zero)',
    ExpressionAttributeValues: { ':zero': 0 },
  });

/** An ADD of `values` to the cell of the same sort key on `shard`, as every counter write makes it. */
const addTo = (cell: Cell, shard: number, values: Record<string, number>): TransactItem =>
  counterAdd(cell.owner, cell.kind, cell.key.sk, values, {
    shard,
    set: cell.kind === 'BAL' ? counterKeys.balanceIndex(cell.owner, cell.key.sk, shard) : undefined,
  });
