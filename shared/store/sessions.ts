import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, TABLE, ttl } from './client.ts';
import { commit } from './commit.ts';
import { Int, nullable, recordReader, Text } from './item-schemas.ts';
import { sessionKeys } from './keys.ts';

/**
 * A sign-in session: whose it is and the merchant it acts for (null: none yet, it may only accept an invitation or
 * sign out). `member_since` is the membership's `created_at` when it was made: authentication reads the membership
 * with the session, so a member removed (or removed and invited again) has no session left.
 */
export interface SessionRecord {
  user_id: string;
  email: string;
  merchant_id: string | null;
  member_since: string | null;
  expires_ms: number;
  /** a cookie session's CSRF token, sealed under the session token (shared/model/csrf.ts); null for a Bearer session */
  csrf_sealed: string | null;
}

/** The session as the table holds it, checked when read back (see item-schemas.ts). */
const SessionItem = v.object({
  expires_ms: Int,
  merchant_id: nullable(Text),
  user_id: Text,
  email: Text,
  member_since: nullable(Text),
  csrf_sealed: nullable(Text),
});
const sessionOf: (item: Record<string, unknown>) => SessionRecord = recordReader('session', SessionItem);

export async function putSession(tokenHash: string, session: SessionRecord): Promise<void> {
  const put = await commit({ writes: [{ create: { entity: 'session', tokenHash }, item: { ...session, expires_at: ttl(session.expires_ms) } }] });
  if (put !== 'committed') throw new Error('A new session token is already stored');
}

export async function getSession(tokenHash: string): Promise<SessionRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: sessionKeys.byTokenHash(tokenHash), ConsistentRead: true }));
  return out.Item && sessionOf(out.Item);
}

/** Points a live session at another merchant of its user's (`member_since`: that membership's `created_at`). */
export async function pointSession(tokenHash: string, merchantId: string, memberSince: string): Promise<boolean> {
  const changed = await commit({
    writes: [{ update: { entity: 'session', tokenHash }, set: { merchant_id: merchantId, member_since: memberSince } }],
  });
  return changed === 'committed';
}

/** Ends a session; false when it was gone already. */
export const deleteSession = async (tokenHash: string): Promise<boolean> =>
  (await commit({ writes: [{ remove: { entity: 'session', tokenHash } }] })) === 'committed';
