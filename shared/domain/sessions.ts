import type { AuditRequest } from '../model/audit.ts';
import { Unauthorized } from '../model/errors.ts';
import * as sessions from '../store/sessions.ts';
import * as team from '../store/team.ts';
import type { EmailRecords, MembershipRecord } from '../store/team.ts';
import { recordSignIn } from './audit-log.ts';
import type { SessionHolder } from './auth.ts';
import { choicesOf } from './team.ts';

type SeenFrom = Pick<AuditRequest, 'request_id' | 'ip' | 'user_agent'>;

/** A session as `GET /api/auth/session` shows it (docs/api.md "Dashboard sessions"). */
function sessionView(session: SessionHolder, records: EmailRecords, member: MembershipRecord | undefined) {
  return {
    user_id: session.userId,
    email: session.email,
    merchant_id: member?.merchant_id ?? null,
    role: member?.role ?? null,
    ...choicesOf(records),
    csrf_token: session.csrfToken,
    expires_at: new Date(session.expiresMs).toISOString(),
  };
}

/**
 * Who is signed in, for which merchant and in which role now. A session whose membership is gone (the member was
 * removed) acts for no merchant: it shows `merchant_id: null`, and may pick another of its memberships.
 */
export async function describeSession(session: SessionHolder) {
  const records = await team.readEmail(session.email);
  const member = records.memberships.find((m) => m.merchant_id === session.merchantId && m.created_at === session.memberSince);
  return sessionView(session, records, member);
}

/**
 * Points the session at another merchant its user is a member of (else 401, as sign-in answers for one); kept as the
 * merchant last used and audited as a sign-in into it. The session's token, CSRF token and expiry stay as they are.
 */
export async function switchSession(session: SessionHolder, merchantId: string, seen: SeenFrom) {
  const records = await team.readEmail(session.email);
  const member = records.memberships.find((m) => m.merchant_id === merchantId);
  if (!member) throw new Unauthorized('invalid_api_key', `${session.email} is not a member of ${merchantId}`);
  if (!(await sessions.pointSession(session.tokenHash, member.merchant_id, member.created_at))) throw new Unauthorized(); // signed out meanwhile
  if (records.user && records.user.last_merchant_id !== merchantId) await team.setLastMerchant(records.user, merchantId);
  await recordSignIn('sign_in', { merchant_id: merchantId, user_id: session.userId, email: session.email, role: member.role }, seen);
  return sessionView({ ...session, merchantId, memberSince: member.created_at }, records, member);
}
