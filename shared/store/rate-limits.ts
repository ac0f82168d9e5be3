import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, db, TABLE, ttl } from './client.ts';
import { rateLimitKeys } from './keys.ts';

/**
 * Counts one request in a fixed window atomically and returns the count of its key, including it. A window key
 * lives one window past its end (TTL). A window of `shard` > 0 is one of several keys a high limit is split over, so
 * a single merchant at 1,000 requests a second keeps each key under a tenth of a partition.
 */
export async function countInWindow(limit: string, subject: string, windowStart: number, windowEnd: number, shard = 0): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: rateLimitKeys.window(limit, subject, windowStart, shard),
      UpdateExpression: 'ADD #count :one SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':expires': ttl(windowEnd + (windowEnd - windowStart)) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.count ?? 1);
}

/** The count of one window key so far (0 before its first request), counting nothing. */
export async function readWindow(limit: string, subject: string, windowStart: number, shard = 0): Promise<number> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: rateLimitKeys.window(limit, subject, windowStart, shard) }));
  return Number(out.Item?.count ?? 0);
}

/**
 * Takes one of the window's `max` slots atomically; false when all are taken. Unlike `countInWindow`, parallel
 * callers can never take more than `max` between them.
 */
export async function takeWindowSlot(limit: string, subject: string, windowStart: number, windowEnd: number, max: number): Promise<boolean> {
  return conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: rateLimitKeys.window(limit, subject, windowStart),
      UpdateExpression: 'ADD #count :one SET expires_at = if_not_exists(expires_at, :expires)',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':max': max, ':expires': ttl(windowEnd + (windowEnd - windowStart)) },
    }),
  );
}

/** Gives a slot back (the use it was taken for did not count). */
export async function returnWindowSlot(limit: string, subject: string, windowStart: number): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: rateLimitKeys.window(limit, subject, windowStart),
      UpdateExpression: 'ADD #count :minus',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':minus': -1 },
    }),
  );
}
