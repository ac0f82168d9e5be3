import { GetCommand, PutCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { onlyMerchants } from './only-merchants.ts';
import { conditionalWrite, db, TABLE, type TransactItem } from '../client.ts';
import { counterAdd, type CounterKind } from '../counters.ts';
import { counterKeys, counterShardOf, type Key, type Owner, writeShardKeys } from '../keys.ts';
import { counterShards } from '../write-shards.ts';

/**
 * `npm run migrate:counter-shards`: counter cells were written over ten shards (more above 30,000 payments a minute)
 * before they followed PAYMENTS_PER_MINUTE, and while the table has no record of the counters' shards every read
 * covers those. This folds each cell on a shard at or above the configured ones (`counterShards.configured`, one up
 * to 3,000 a minute) into the cell of the same sort key on shard `shard % configured`, then records that many, so
 * reads cover only them. A fold is one transaction: the cell is deleted if it still holds what was read, and its
 * amounts are added to the other. Run it once the deploy is done (functions of the previous version write to every
 * shard), with the deployment's PAYMENTS_PER_MINUTE if it was raised; safe to run again and while the API serves.
 * Where the record exists, reads already cover every shard it names, and nothing is done. `merchantIds` folds those
 * merchants' cells whatever the record says, and records nothing (a trial's, a test's).
 */
export async function foldCounterShards(
  options: { merchantIds?: readonly string[]; floor?: Key } = {},
): Promise<{ folded: number; recorded?: number; found?: number }> {
  const floor = options.floor ?? writeShardKeys.counterFloor();
  const shards = counterShards.configured;
  const foldAll = async () => {
    let folded = 0;
    for await (const cell of cellsAbove(shards, options.merchantIds)) if (await fold(cell, cell.shard % shards)) folded++;
    return folded;
  };
  if (options.merchantIds?.length) return { folded: await foldAll() };
  const existing = await db.send(new GetCommand({ TableName: TABLE, Key: floor, ConsistentRead: true }));
  if (existing.Item?.shards !== undefined) return { folded: 0, found: Number(existing.Item.shards) };
  const folded = await foldAll();
  // a deployment configured for more shards may have recorded them meanwhile: that record stays
  const recorded = await conditionalWrite(
    new PutCommand({ TableName: TABLE, Item: { ...floor, shards }, ConditionExpression: 'attribute_not_exists(shards)' }),
  );
  return recorded ? { folded, recorded: shards } : { folded };
}

interface Cell {
  key: Key;
  owner: Owner;
  kind: CounterKind;
  shard: number;
  values: Record<string, number>;
}

/** Every counter cell on shard `shards` or above (a one-off admin job reads the whole table once; no request path scans). */
async function* cellsAbove(shards: number, merchantIds?: readonly string[]): AsyncGenerator<Cell> {
  const only = onlyMerchants(merchantIds);
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: TABLE,
        FilterExpression: `begins_with(pk, :cnt)${only.clause}`,
        ExpressionAttributeValues: { ':cnt': 'CNT#', ...only.values },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const cell = cellOf(item);
      if (cell.shard >= shards) yield cell;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** A cell as stored: `CNT#<merchant>[:test]#<kind>#<shard>`, its amounts every number it holds. */
function cellOf(item: Record<string, unknown>): Cell {
  const [, scope = '', kind = ''] = String(item.pk).split('#');
  const values: Record<string, number> = {};
  for (const [k, v] of Object.entries(item)) if (typeof v === 'number') values[k] = v;
  return {
    key: { pk: String(item.pk), sk: String(item.sk) },
    owner: { merchant_id: scope.replace(/:test$/, ''), livemode: !scope.endsWith(':test') },
    kind: kind as CounterKind,
    shard: counterShardOf(String(item.pk)),
    values,
  };
}

/** Moves one cell's amounts to shard `to`; a cell that changed meanwhile is read again, one that is gone is done. */
async function fold(cell: Cell, to: number): Promise<boolean> {
  for (let current: Cell | undefined = cell; current;) {
    const names = Object.keys(current.values);
    const held = names.map((_, i) => `#v${i} = :v${i}`).join(' AND ');
    const remove: TransactItem = {
      Delete: {
        TableName: TABLE,
        Key: current.key,
        ConditionExpression: names.length ? held : 'attribute_exists(pk)',
        ExpressionAttributeNames: names.length ? Object.fromEntries(names.map((n, i) => [`#v${i}`, n])) : undefined,
        ExpressionAttributeValues: names.length ? Object.fromEntries(names.map((n, i) => [`:v${i}`, current!.values[n]])) : undefined,
      },
    };
    const items = names.length ? [remove, addTo(current, to)] : [remove];
    if (await conditionalWrite(new TransactWriteCommand({ TransactItems: items }))) return true;
    const now = await db.send(new GetCommand({ TableName: TABLE, Key: cell.key, ConsistentRead: true }));
    current = now.Item ? cellOf(now.Item) : undefined;
  }
  return false;
}

/** The ADD of a cell's amounts to the cell of the same sort key on shard `to`, as every counter write makes it. */
const addTo = (cell: Cell, to: number): TransactItem =>
  counterAdd(cell.owner, cell.kind, cell.key.sk, cell.values, {
    shard: to,
    set: cell.kind === 'BAL' ? counterKeys.balanceIndex(cell.owner, cell.key.sk, to) : undefined,
  });
