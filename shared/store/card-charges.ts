import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, TABLE, type TransactItem, ttl } from './client.ts';
import { cardChargeKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';

/** A day's count of a saved card's charge retries. */
export interface DayCount {
  day: string;
  count: number;
}

/** The card's counts from `fromDay` to `toDay` (YYYY-MM-DD, both included), oldest first: one query. */
export async function countsBetween(owner: Owner, fingerprint: string, fromDay: string, toDay: string): Promise<DayCount[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': cardChargeKeys.partition(owner, fingerprint), ':from': fromDay, ':to': toDay },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((item) => ({ day: String(item.sk), count: Number(item.count ?? 0) }));
}

/**
 * One more retry of the card on `day`, for the transaction of the attempt that makes it: refused unless the day's
 * count is below `dayLimit` (the cap less the other days' counts), so racing charges never pass the cap together.
 */
export const retryCounted = (owner: Owner, fingerprint: string, day: string, dayLimit: number, expiresAt: number): TransactItem => ({
  Update: {
    TableName: TABLE,
    Key: cardChargeKeys.day(owner, fingerprint, day),
    UpdateExpression: 'ADD #count :one SET expires_at = if_not_exists(expires_at, :expires)',
    ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':one': 1, ':limit': dayLimit, ':expires': ttl(expiresAt) },
  },
});
