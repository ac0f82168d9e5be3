import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, TABLE, ttl } from './client.ts';
import { sessionKeys } from './keys.ts';

export interface SessionRecord {
  merchant_id: string;
  expires_ms: number;
}

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
  return out.Item as SessionRecord | undefined;
}
