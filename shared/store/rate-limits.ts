import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, TABLE, ttl } from './client.ts';
import { rateLimitKeys } from './keys.ts';

/**
 * Counts one request in a fixed window atomically and returns the count including it. A window key lives one
 * window past its end (TTL). Not sharded: the count must be exact, and one key sees the traffic of a single client
 * IP or merchant, which the WAF rate-based rule and stage throttling bound far below a partition's 1,000 WCU/s.
 */
export async function countInWindow(limit: string, subject: string, windowStart: number, windowEnd: number): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: rateLimitKeys.window(limit, subject, windowStart),
      UpdateExpression: 'ADD #count :one SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':expires': ttl(windowEnd + (windowEnd - windowStart)) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.count ?? 1);
}

/** The count of a window so far, without counting anything. */
export async function windowCount(limit: string, subject: string, windowStart: number): Promise<number> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: rateLimitKeys.window(limit, subject, windowStart), ConsistentRead: true }));
  return Number(out.Item?.count ?? 0);
}
