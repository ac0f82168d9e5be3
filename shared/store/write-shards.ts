import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { onFirstUse } from '../first-use.ts';
import { conditionalWrite, db, TABLE } from './client.ts';
import { type Key, writeShardKeys, writeShardsOf } from './keys.ts';

/**
 * How many shards the keys a payment create writes for its merchant are spread over: the payments and customers
 * lists (that many index partitions) and the counters (as many partitions per kind), keys.ts. A write uses what this
 * deployment's PAYMENTS_PER_MINUTE needs (`configured`); the table records the most ever used, so a read still covers
 * every shard written after the limit is lowered.
 */
export interface WriteShards {
  configured: number;
  /** `configured`, once the table's record covers it: await it before sending a write to a shard */
  forWrite(): Promise<number>;
  /** the shards a read covers: every one a write may have used */
  forRead(): Promise<number>;
}

/**
 * The record changes only when a deploy raises the limit, and that deploy's readers are configured for as many, so a
 * container raises it once (if it needs more than one shard) and reads it once. Without a record, writes used one.
 */
export function writeShardsFor(configured: number, floor: Key = writeShardKeys.floor()): WriteShards {
  const recorded = onFirstUse(async () => (await readFloor(floor)) ?? 1);
  const raised = onFirstUse(async () => (await createFloor(floor, configured)) || (await raiseFloor(floor, configured)));
  return {
    configured,
    async forWrite() {
      if (configured > 1) await raised();
      return configured;
    },
    async forRead() {
      return Math.max(configured, await recorded());
    },
  };
}

const configured = writeShardsOf(config.PAYMENTS_PER_MINUTE);

/** The shards of this deployment's PAYMENTS_PER_MINUTE for the lists: one per 3,000 a minute. */
export const writeShards: WriteShards = writeShardsFor(configured);

/** The same for the counter cells, with their own record. */
export const counterShards: WriteShards = writeShardsFor(configured, writeShardKeys.counterFloor());

/** Writes the record where there is none. */
const createFloor = (key: Key, shards: number): Promise<boolean> =>
  conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: key,
      UpdateExpression: 'SET shards = :shards',
      ConditionExpression: 'attribute_not_exists(shards)',
      ExpressionAttributeValues: { ':shards': shards },
    }),
  );

/** Raises the record to `shards`; a record already at or above them stays. */
const raiseFloor = (key: Key, shards: number): Promise<boolean> =>
  conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: key,
      UpdateExpression: 'SET shards = :shards',
      ConditionExpression: 'shards < :shards',
      ExpressionAttributeValues: { ':shards': shards },
    }),
  );

async function readFloor(key: Key): Promise<number | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: key }));
  return out.Item?.shards === undefined ? undefined : Number(out.Item.shards);
}
