import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, TABLE, ttl } from './client.ts';
import { velocityKeys } from './keys.ts';

export const VELOCITY_WINDOW_MS = 60 * 60 * 1000;

/** Counts one attempt with this card fingerprint in the current hour; returns the count including it. */
export async function countCardAttempt(fingerprint: string, now: number): Promise<number> {
  const windowStart = now - (now % VELOCITY_WINDOW_MS);
  const out = await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: velocityKeys.window(fingerprint, windowStart),
      UpdateExpression: 'ADD #count :one SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':expires': ttl(windowStart + 2 * VELOCITY_WINDOW_MS) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.count ?? 1);
}

/** Takes back an attempt {@link countCardAttempt} counted at `now` (a request the rate limit then refused). */
export async function uncountCardAttempt(fingerprint: string, now: number): Promise<void> {
  const windowStart = now - (now % VELOCITY_WINDOW_MS);
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: velocityKeys.window(fingerprint, windowStart),
      UpdateExpression: 'ADD #count :minus',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':minus': -1 },
    }),
  );
}
