import { emailSender } from '../messaging/email.ts';
import { clock, isoNow } from '../model/clock.ts';
import { newSessionToken, sha256 } from '../model/credentials.ts';
import { newCsrfToken, sealCsrf } from '../model/csrf.ts';
import { BadRequest, InvalidState, NotFound, PermissionDenied, Unauthorized } from '../model/errors.ts';
import { freshOrigin, idFor, newId, type Origin } from '../model/ids.ts';
import type { Role } from '../model/permissions.ts';
import { INVITATION, transition } from '../model/state-machines.ts';
import type { PageQuery } from '../store/pagination.ts';
import * as sessions from '../store/sessions.ts';
import * as team from '../store/team.ts';
import type { EmailRecords, InvitationRecord, MembershipRecord, UserRecord } from '../store/team.ts';
import type { Merchant, SessionHolder } from './auth.ts';

/** A session lasts 12 hours (docs/api.md "Sign-in"). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** An invitation can be accepted for 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Sign-in reads again after a racing sign-in of the same e-mail wrote first; a few rounds are plenty. */
const SIGN_IN_ROUNDS = 4;

const LAST_OWNER = 'a merchant keeps at least one owner: make another member owner first';
const OWNERS_ONLY = 'only an owner makes or unmakes owners';

const isPending = (invitation: InvitationRecord, now: number) => invitation.status === 'pending' && invitation.expires_ms > now;

/** How a session's token travels: `bearer` in the answer, `cookie` in the dashboard's cookie with a CSRF token. */
export type SessionKind = 'bearer' | 'cookie';

/** The merchants an e-mail may act for and the invitations it may accept (also `GET /api/auth/session`'s). */
export function choicesOf(records: EmailRecords, now = clock.now()) {
  return {
    memberships: records.memberships.map((m) => ({ merchant_id: m.merchant_id, business_name: m.business_name, role: m.role })),
    invitations: records.invitations.filter((i) => isPending(i, now)).map((i) => ({ id: i.id, business_name: i.business_name, role: i.role })),
  };
}

/**
 * What verify-otp and an accepted invitation answer: the token, the merchant it acts for (or null), and the choices;
 * a cookie session's CSRF token too.
 */
function sessionAnswer(opened: OpenedSession, user: UserRecord, records: EmailRecords, chosen: MembershipRecord | undefined) {
  return {
    token: opened.token,
    merchant_id: chosen?.merchant_id ?? null,
    user_id: user.id,
    role: chosen?.role ?? null,
    ...choicesOf(records),
    ...(opened.csrfToken !== null && { csrf_token: opened.csrfToken }),
  };
}

interface OpenedSession {
  token: string;
  csrfToken: string | null;
}

async function openSession(user: UserRecord, membership: MembershipRecord | undefined, kind: SessionKind = 'bearer'): Promise<OpenedSession> {
  const token = newSessionToken();
  const csrfToken = kind === 'cookie' ? newCsrfToken() : null;
  await sessions.putSession(sha256(token), {
    user_id: user.id,
    email: user.email,
    merchant_id: membership?.merchant_id ?? null,
    member_since: membership?.created_at ?? null,
    expires_ms: clock.now() + SESSION_TTL_MS,
    csrf_sealed: csrfToken === null ? null : sealCsrf(csrfToken, token),
  });
  return { token, csrfToken };
}

/**
 * Signs an e-mail whose code was right in: to `requested` (a merchant it is a member of, else 401), else the merchant
 * it last used. The first sign-in of an e-mail with no membership and no pending invitation makes a merchant with it
 * as owner; with a pending invitation none is made, and the session acts for no merchant until one is accepted.
 */
export async function signIn(email: string, requested?: string, kind: SessionKind = 'bearer') {
  for (let round = 0; round < SIGN_IN_ROUNDS; round++) {
    const records = await team.readEmail(email);
    const now = clock.now();
    const at = new Date(now).toISOString();
    const pending = records.invitations.some((i) => isPending(i, now));
    const user = records.user ?? { id: newId('user'), email, created_at: at, last_merchant_id: null };
    // Each write below is refused when a racing sign-in of the e-mail wrote first: then read what it made.
    if (records.memberships.length === 0 && !pending) {
      await team.createMerchantWithOwner({ id: newId('merchant'), email, created_at: at }, user, !records.user);
      continue;
    }
    if (!records.user) {
      await team.createUser(user);
      continue;
    }
    const chosen = requested
      ? records.memberships.find((m) => m.merchant_id === requested)
      : (records.memberships.find((m) => m.merchant_id === user.last_merchant_id) ??
        [...records.memberships].sort((a, b) => a.created_at.localeCompare(b.created_at))[0]);
    if (requested && !chosen) throw new Unauthorized('invalid_api_key', `${email} is not a member of ${requested}`);
    if (chosen && chosen.merchant_id !== user.last_merchant_id) await team.setLastMerchant(user, chosen.merchant_id);
    return sessionAnswer(await openSession(user, chosen, kind), user, records, chosen);
  }
  throw new Error(`Sign-in of an e-mail kept racing other sign-ins for ${SIGN_IN_ROUNDS} rounds`);
}

/** The merchant an e-mail owns (the local runtime's demo merchant), made with it as owner as a first sign-in does. */
export async function merchantOwnedBy(email: string): Promise<string> {
  for (let round = 0; round < SIGN_IN_ROUNDS; round++) {
    const records = await team.readEmail(email);
    const owned = records.memberships.find((m) => m.role === 'owner');
    if (owned) return owned.merchant_id;
    const user = records.user ?? { id: newId('user'), email, created_at: isoNow(), last_merchant_id: null };
    await team.createMerchantWithOwner({ id: newId('merchant'), email, created_at: isoNow() }, user, !records.user);
  }
  throw new Error(`Making the merchant of ${email} kept racing sign-ins for ${SIGN_IN_ROUNDS} rounds`);
}

/** Ends the session; its token answers 401 from the next request on. */
export async function signOut(session: SessionHolder) {
  await sessions.deleteSession(session.tokenHash);
  return { object: 'session' as const, signed_out: true as const };
}

const invitationView = (i: InvitationRecord, now = clock.now()) => ({
  id: i.id,
  object: 'invitation' as const,
  email: i.email,
  role: i.role,
  status: i.status === 'pending' && i.expires_ms <= now ? ('expired' as const) : i.status,
  invited_by: i.invited_by,
  created_at: i.created_at,
  expires_at: new Date(i.expires_ms).toISOString(),
});

const memberView = (m: MembershipRecord) => ({ id: m.user_id, object: 'member' as const, email: m.email, role: m.role, created_at: m.created_at });

/** Only an owner makes or unmakes owners: a change to or from `owner` by anyone else (an admin, an API key) is 403. */
function mayTouchOwners(merchant: Merchant, ...roles: Role[]) {
  if (roles.includes('owner') && merchant.user?.role !== 'owner') throw new PermissionDenied(OWNERS_ONLY);
}

/** Invites an e-mail to the merchant's team with a role, and e-mails it how to join (valid 7 days). */
export async function invite(merchant: Merchant, input: { email: string; role: Role }, baseUrl: string, origin: Origin = freshOrigin()) {
  mayTouchOwners(merchant, input.role);
  const now = origin.at;
  const [records, businessName] = await Promise.all([team.readEmail(input.email), team.businessNameOf(merchant.id)]);
  if (records.memberships.some((m) => m.merchant_id === merchant.id))
    throw new BadRequest('parameter_invalid', 'email', `${input.email} is already a member of this team`);
  const open = records.invitations.find((i) => i.merchant_id === merchant.id && isPending(i, now));
  if (open)
    throw new BadRequest('parameter_invalid', 'email', `${input.email} is already invited (${open.id}); revoke that invitation to invite again`);
  const invitation: InvitationRecord = {
    id: idFor('invitation', origin),
    merchant_id: merchant.id,
    email: input.email,
    role: input.role,
    status: 'pending',
    business_name: businessName ?? merchant.id,
    invited_by: merchant.user?.email ?? null,
    created_at: new Date(now).toISOString(),
    expires_ms: now + INVITATION_TTL_MS,
  };
  await team.putInvitation(invitation);
  const view = invitationView(invitation, now);
  await emailSender.send({
    to: invitation.email,
    subject: `You are invited to join ${invitation.business_name}`,
    text: [
      `${invitation.invited_by ?? 'The team of ' + invitation.business_name} invites you to join ${invitation.business_name} as ${invitation.role}.`,
      `Sign in with this address (${baseUrl}/api/auth/request-otp), then accept the invitation:`,
      `POST ${baseUrl}/api/team/invitations/${invitation.id}/accept`,
      `It expires at ${view.expires_at}.`,
    ].join('\n'),
  });
  return view;
}

export async function listInvitations(merchant: Merchant, page: PageQuery) {
  const result = await team.listInvitations(merchant.id, page);
  const now = clock.now();
  return { object: 'list' as const, data: result.data.map((i) => invitationView(i, now)), has_more: result.has_more };
}

/** Revokes an invitation: it can no longer be accepted. Revoking twice is fine; an accepted one is 400. */
export async function revokeInvitation(merchant: Merchant, id: string) {
  const invitation = await team.getInvitation(merchant.id, id);
  if (!invitation) throw new NotFound();
  mayTouchOwners(merchant, invitation.role);
  const step = transition('invitation', INVITATION, 'revoke', invitation.status);
  if (!(await team.revokeInvitation(invitation, step))) return revokeInvitation(merchant, id);
  return invitationView({ ...invitation, status: step.to });
}

/**
 * Accepts an invitation for the session's own e-mail: the membership is made and a token for that merchant answered.
 * An invitation to another e-mail is not found (404), whatever the session: only the invited address can see it.
 */
export async function acceptInvitation(session: SessionHolder, id: string) {
  const invitation = await team.getInvitationOfEmail(session.email, id);
  if (!invitation) throw new NotFound();
  const step = transition('invitation', INVITATION, 'accept', invitation.status);
  const now = clock.now();
  if (invitation.expires_ms <= now)
    throw new InvalidState(undefined, `this invitation expired at ${new Date(invitation.expires_ms).toISOString()}; ask the team for a new one`);
  const user: UserRecord = { id: session.userId, email: session.email, created_at: isoNow(), last_merchant_id: null };
  const member: MembershipRecord = {
    merchant_id: invitation.merchant_id,
    user_id: session.userId,
    email: session.email,
    role: invitation.role,
    created_at: new Date(now).toISOString(),
    business_name: invitation.business_name,
  };
  const accepted = await team.acceptInvitation(invitation, step, member, user, now);
  if (accepted === 'member') throw new InvalidState(undefined, `${session.email} is already a member of ${invitation.business_name}`);
  if (accepted !== 'committed') return acceptInvitation(session, id); // revoked or accepted meanwhile: say which
  const records = await team.readEmail(session.email);
  return sessionAnswer(await openSession(records.user ?? user, member), records.user ?? user, records, member);
}

export async function listMembers(merchant: Merchant, page: PageQuery) {
  const result = await team.listMembers(merchant.id, page);
  return { object: 'list' as const, data: result.data.map(memberView), has_more: result.has_more };
}

async function memberOf(merchant: Merchant, userId: string): Promise<MembershipRecord> {
  const member = await team.getMembership(merchant.id, userId);
  if (!member) throw new NotFound();
  return member;
}

/** A member's new role, seen by their next request. The last owner keeps theirs; only an owner touches owners. */
export async function changeRole(merchant: Merchant, userId: string, role: Role): Promise<ReturnType<typeof memberView>> {
  const member = await memberOf(merchant, userId);
  mayTouchOwners(merchant, member.role, role);
  if (member.role === role) return memberView(member);
  const changed = await team.changeRole(member, role);
  if (changed === 'last_owner') throw new InvalidState('role', LAST_OWNER);
  if (changed !== 'committed') return changeRole(merchant, userId, role); // changed or removed meanwhile: read again
  return memberView({ ...member, role });
}

/** Removes a member: their sessions for this merchant answer 401 from the next request on. */
export async function removeMember(merchant: Merchant, userId: string) {
  const member = await memberOf(merchant, userId);
  mayTouchOwners(merchant, member.role);
  const removed = await team.removeMember(member);
  if (removed === 'last_owner') throw new InvalidState(undefined, LAST_OWNER);
  if (removed !== 'committed') return removeMember(merchant, userId); // changed or removed meanwhile: read again
  return { id: member.user_id, object: 'member' as const, deleted: true as const };
}
