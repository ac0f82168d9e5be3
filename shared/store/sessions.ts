import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, TABLE, ttl } from './client.ts';
import { Int, picklistOf, recordReader, Text } from './item-schemas.ts';
import { type Role, ROLES } from '../model/permissions.ts';
import { sessionKeys } from './keys.ts';

export interface SessionRecord {
  merchant_id: string;
  expires_ms: number;
  /** the team member the session acts as (absent: the merchant's owner) */
  user?: { id: string; email: string; role: Role };
}

/** The session as the table holds it, checked when read back (see item-schemas.ts). */
const SessionItem = v.object({
  merchant_id: Text,
  expires_ms: Int,
  user: v.optional(v.object({ id: Text, email: Text, role: picklistOf<Role>()(ROLES) })),
});
const sessionOf: (item: Record<string, unknown>) => SessionRecord = recordReader('session', SessionItem);

export async function putSession(tokenHash: string, session: SessionRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...sessionKeys.byTokenHash(tokenHash), type: 'session', ...session, expires_at: ttl(session.expires_ms) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getSession(tokenHash: string): Promise<SessionRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: sessionKeys.byTokenHash(tokenHash), ConsistentRead: true }));
  return out.Item && sessionOf(out.Item);
}
