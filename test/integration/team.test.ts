import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as requestOtp } from '../../functions/auth/request-otp.ts';
import { handler as signOut } from '../../functions/auth/sign-out.ts';
import { handler as verifyOtp } from '../../functions/auth/verify-otp.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { handler as acceptInvitation } from '../../functions/team/invitations/accept.ts';
import { handler as createInvitation } from '../../functions/team/invitations/create.ts';
import { handler as listInvitations } from '../../functions/team/invitations/list.ts';
import { handler as revokeInvitation } from '../../functions/team/invitations/revoke.ts';
import { handler as removeMember } from '../../functions/team/members/delete.ts';
import { handler as listMembers } from '../../functions/team/members/list.ts';
import { handler as updateMember } from '../../functions/team/members/update.ts';
import { createDemoMerchant } from '../../shared/domain/demo.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { clock } from '../../shared/model/clock.ts';
import { apiEvent, invokeHttp, type HttpResult } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';

const uniqueEmail = (who = 'member') => `${who}-${randomUUID()}@shop.test`;
const uniqueIp = () => `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`;
const HOUR = 3_600_000;

const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
});

/** The newest e-mail to an address, as its reader sees it (the local outbox). */
const mailTo = (email: string) => listLocalOutbox().find((m) => m.to === email);

/** Signs an e-mail in with the code the outbox got; `merchant_id` picks the merchant. */
async function signIn(email: string, merchantId?: string): Promise<HttpResult> {
  const requested = await invokeHttp(requestOtp, apiEvent({ method: 'POST', path: '/api/auth/request-otp', body: { email }, sourceIp: uniqueIp() }));
  const otp = /\b(\d{6})\b/.exec(mailTo(email)?.text ?? '')?.[1];
  const body = { request_id: requested.body.request_id, otp, ...(merchantId ? { merchant_id: merchantId } : {}) };
  return invokeHttp(verifyOtp, apiEvent({ method: 'POST', path: '/api/auth/verify-otp', body, sourceIp: uniqueIp() }));
}

const call = (handler: Parameters<typeof invokeHttp>[0], method: string, path: string, token: string, body?: unknown) =>
  invokeHttp(handler, apiEvent({ method, path, headers: bearer(token), body }));

const invite = (token: string, email: string, role: string) => call(createInvitation, 'POST', '/api/team/invitations', token, { email, role });
const accept = (token: string, id: string) => call(acceptInvitation, 'POST', `/api/team/invitations/${id}/accept`, token);
const members = (token: string) => call(listMembers, 'GET', '/api/team/members', token);
const setRole = (token: string, userId: string, role: string) => call(updateMember, 'PUT', `/api/team/members/${userId}`, token, { role });
const remove = (token: string, userId: string) => call(removeMember, 'DELETE', `/api/team/members/${userId}`, token);

/** A merchant made by its owner's first sign-in. */
async function ownerSignUp() {
  const email = uniqueEmail('owner');
  const res = await signIn(email);
  expect(res.status).toBe(200);
  return { email, token: res.body.token as string, merchantId: res.body.merchant_id as string, userId: res.body.user_id as string };
}

/** `email` invited with `role`, signed in and joined: its token for the merchant and its user id. */
async function join(ownerToken: string, role: string, email = uniqueEmail()) {
  const invitation = await invite(ownerToken, email, role);
  expect(invitation.status).toBe(200);
  const first = await signIn(email);
  const joined = await accept(first.body.token, invitation.body.id);
  expect(joined.status).toBe(200);
  return { email, token: joined.body.token as string, userId: joined.body.user_id as string };
}

describe('invitations', () => {
  it('e-mails the invited address; its first sign-in makes no merchant, and accepting joins with the role', async () => {
    // Prepare
    const owner = await ownerSignUp();
    const email = uniqueEmail('support');
    // Act
    const invited = await invite(owner.token, email, 'support');
    const mail = mailTo(email);
    const first = await signIn(email);
    const beforeAccepting = await call(listCustomers, 'GET', '/api/customers', first.body.token);
    const joined = await accept(first.body.token, invited.body.id);
    const team = await members(owner.token);
    const listed = await call(listInvitations, 'GET', '/api/team/invitations', owner.token);
    // Assess
    expect(invited.body).toMatchObject({ object: 'invitation', email, role: 'support', status: 'pending', invited_by: owner.email });
    expect(Date.parse(invited.body.expires_at) - Date.parse(invited.body.created_at)).toBe(7 * 24 * HOUR);
    expect(mail?.text).toContain(`/api/team/invitations/${invited.body.id}/accept`);
    expect(mail?.text).toContain('as support');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      merchant_id: null,
      role: null,
      memberships: [],
      invitations: [{ id: invited.body.id, business_name: owner.email, role: 'support' }],
    });
    expect(beforeAccepting.status).toBe(403);
    expect(beforeAccepting.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
    expect(beforeAccepting.body.error.message).toContain('accept an invitation');
    expect(joined.body).toMatchObject({
      merchant_id: owner.merchantId,
      user_id: first.body.user_id,
      role: 'support',
      memberships: [{ merchant_id: owner.merchantId, role: 'support' }],
      invitations: [],
    });
    expect(team.status).toBe(200);
    expect(team.body.data.map((m: { email: string; role: string }) => [m.email, m.role]).sort()).toEqual(
      [
        [owner.email, 'owner'],
        [email, 'support'],
      ].sort(),
    );
    expect(listed.body.data[0]).toMatchObject({ id: invited.body.id, status: 'accepted' });
  });

  it('signs an invited member who joined into that merchant next time, without making one', async () => {
    const owner = await ownerSignUp();
    const member = await join(owner.token, 'analyst');
    const again = await signIn(member.email);
    expect(again.body).toMatchObject({ merchant_id: owner.merchantId, role: 'analyst', user_id: member.userId });
  });

  it('expires an invitation after 7 days', async () => {
    // Prepare
    const owner = await ownerSignUp();
    const email = uniqueEmail();
    const start = realNow();
    clock.now = () => start;
    const invited = await invite(owner.token, email, 'developer');
    // Act: 7 days later
    clock.now = () => start + 7 * 24 * HOUR;
    const session = await signIn(email);
    const accepted = await accept(session.body.token, invited.body.id);
    const ownerAgain = await signIn(owner.email); // their first session ended after 12 hours
    const listed = await call(listInvitations, 'GET', '/api/team/invitations', ownerAgain.body.token);
    // Assess
    expect(session.body.invitations).toEqual([]);
    expect(accepted.status).toBe(400);
    expect(accepted.body.error.code).toBe('invalid_state');
    expect(accepted.body.error.message).toContain('expired');
    expect(listed.body.data[0]).toMatchObject({ id: invited.body.id, status: 'expired' });
  });

  it('accepts an invitation on its last day', async () => {
    const owner = await ownerSignUp();
    const email = uniqueEmail();
    const start = realNow();
    clock.now = () => start;
    const invited = await invite(owner.token, email, 'developer');
    clock.now = () => start + 7 * 24 * HOUR - 60_000;
    const session = await signIn(email);
    const accepted = await accept(session.body.token, invited.body.id);
    expect(accepted.status).toBe(200);
    expect(accepted.body.role).toBe('developer');
  });

  it('refuses a revoked invitation, and revoking twice answers 200', async () => {
    // Prepare
    const owner = await ownerSignUp();
    const email = uniqueEmail();
    const invited = await invite(owner.token, email, 'admin');
    const session = await signIn(email);
    // Act
    const revoked = await call(revokeInvitation, 'DELETE', `/api/team/invitations/${invited.body.id}`, owner.token);
    const again = await call(revokeInvitation, 'DELETE', `/api/team/invitations/${invited.body.id}`, owner.token);
    const accepted = await accept(session.body.token, invited.body.id);
    const team = await members(owner.token);
    // Assess
    expect(revoked.body).toMatchObject({ id: invited.body.id, status: 'revoked' });
    expect(again.status).toBe(200);
    expect(accepted.status).toBe(400);
    expect(accepted.body.error.message).toBe('Invalid request body: a revoked invitation cannot be accepted');
    expect(team.body.data).toHaveLength(1);
  });

  it('gives an invited e-mail whose invitation was revoked a merchant of its own at its next sign-in', async () => {
    const owner = await ownerSignUp();
    const email = uniqueEmail();
    const invited = await invite(owner.token, email, 'admin');
    const first = await signIn(email);
    await call(revokeInvitation, 'DELETE', `/api/team/invitations/${invited.body.id}`, owner.token);
    const next = await signIn(email);
    expect(first.body.merchant_id).toBeNull();
    expect(next.body).toMatchObject({ user_id: first.body.user_id, role: 'owner', invitations: [] });
    expect(next.body.merchant_id).toMatch(/^mer_/);
    expect(next.body.merchant_id).not.toBe(owner.merchantId);
  });

  it('refuses to invite a member again, or an e-mail already invited', async () => {
    const owner = await ownerSignUp();
    const member = await join(owner.token, 'analyst');
    const email = uniqueEmail();
    await invite(owner.token, email, 'analyst');
    const [memberAgain, invitedAgain] = await Promise.all([invite(owner.token, member.email, 'admin'), invite(owner.token, email, 'admin')]);
    expect(memberAgain.status).toBe(400);
    expect(memberAgain.body.error).toMatchObject({ code: 'parameter_invalid', param: 'email' });
    expect(invitedAgain.status).toBe(400);
    expect(invitedAgain.body.error.message).toContain('already invited');
  });
});

describe('a member of several merchants', () => {
  it('picks a merchant with merchant_id, else gets the one last used; a merchant it is not in answers 401', async () => {
    // Prepare: one person, member of two merchants
    const first = await ownerSignUp();
    const second = await ownerSignUp();
    const person = await join(first.token, 'developer');
    await join(second.token, 'analyst', person.email);
    const stranger = await ownerSignUp();
    // Act
    const intoFirst = await signIn(person.email, first.merchantId);
    const lastUsed = await signIn(person.email);
    const intoSecond = await signIn(person.email, second.merchantId);
    const notAMember = await signIn(person.email, stranger.merchantId);
    // Assess
    expect(intoFirst.body).toMatchObject({ merchant_id: first.merchantId, role: 'developer' });
    expect(intoFirst.body.memberships).toHaveLength(2);
    expect(lastUsed.body).toMatchObject({ merchant_id: first.merchantId, role: 'developer' });
    expect(intoSecond.body).toMatchObject({ merchant_id: second.merchantId, role: 'analyst' });
    expect(notAMember.status).toBe(401);
    expect(notAMember.body.error.message).toContain(`not a member of ${stranger.merchantId}`);
  });
});

describe('members', () => {
  it("takes a role change into account from the member's very next request", async () => {
    // Prepare: a second owner, whose requests making owners depend on their role
    const owner = await ownerSignUp();
    const second = await join(owner.token, 'owner');
    const third = await join(owner.token, 'analyst');
    // Act: the second owner made admin, then trying to make an owner
    const demoted = await setRole(owner.token, second.userId, 'admin');
    const asAdmin = await setRole(second.token, third.userId, 'owner');
    const promoted = await setRole(owner.token, second.userId, 'owner');
    const asOwner = await setRole(second.token, third.userId, 'owner');
    // Assess
    expect(demoted.body).toMatchObject({ id: second.userId, role: 'admin' });
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body.error.message).toBe('Permission denied: only an owner makes or unmakes owners');
    expect(promoted.status).toBe(200);
    expect(asOwner.status).toBe(200);
    expect(asOwner.body.role).toBe('owner');
  });

  it('stops a removed member at once', async () => {
    // Prepare
    const owner = await ownerSignUp();
    const member = await join(owner.token, 'admin');
    const before = await members(member.token);
    // Act
    const removed = await remove(owner.token, member.userId);
    const after = await members(member.token);
    const signedInAgain = await signIn(member.email);
    // Assess
    expect(before.status).toBe(200);
    expect(removed.body).toEqual({ id: member.userId, object: 'member', deleted: true });
    expect(after.status).toBe(401);
    // no membership left and no invitation: a sign-in makes the person a merchant of their own, not the old one
    expect(signedInAgain.body.merchant_id).not.toBe(owner.merchantId);
    expect(signedInAgain.body.role).toBe('owner');
  });

  it('keeps the last owner: removing or demoting them is 400', async () => {
    const owner = await ownerSignUp();
    const demoted = await setRole(owner.token, owner.userId, 'admin');
    const removed = await remove(owner.token, owner.userId);
    const still = await members(owner.token);
    expect(demoted.status).toBe(400);
    expect(demoted.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('at least one owner') });
    expect(removed.status).toBe(400);
    expect(still.body.data).toEqual([expect.objectContaining({ id: owner.userId, role: 'owner' })]);
  });

  it('keeps one owner when two owners demote each other at once', async () => {
    const owner = await ownerSignUp();
    const second = await join(owner.token, 'owner');
    const answers = await Promise.all([setRole(owner.token, second.userId, 'admin'), setRole(second.token, owner.userId, 'admin')]);
    const team = await members(owner.token).then((r) => (r.status === 200 ? r : members(second.token)));
    // one wins; the other finds itself no owner any more (403) or the last owner left (400)
    const [won, lost] = [...answers].sort((x, y) => x.status - y.status);
    expect(won!.status).toBe(200);
    expect([400, 403]).toContain(lost!.status);
    expect(team.body.data.filter((m: { role: string }) => m.role === 'owner')).toHaveLength(1);
  });

  it('never lets the last owner go after a member was made owner and removed at once', async () => {
    // Prepare: three merchants, each with an owner and an admin
    const teams = await Promise.all(
      [1, 2, 3].map(async () => {
        const owner = await ownerSignUp();
        return { owner, admin: await join(owner.token, 'admin') };
      }),
    );
    // Act: the admin made owner and removed at the same moment; then the first owner tries to step down
    await Promise.all(teams.flatMap(({ owner, admin }) => [setRole(owner.token, admin.userId, 'owner'), remove(owner.token, admin.userId)]));
    await Promise.all(teams.map(({ owner }) => setRole(owner.token, owner.userId, 'admin')));
    // Assess: every merchant still has an owner (the first owner stays one, or the admin became one and stayed)
    for (const { owner } of teams) {
      const team = await members(owner.token);
      expect(team.body.data.filter((m: { role: string }) => m.role === 'owner').length).toBeGreaterThanOrEqual(1);
    }
  });

  it('lets only an owner make or unmake owners', async () => {
    // Prepare
    const owner = await ownerSignUp();
    const admin = await join(owner.token, 'admin');
    const other = await join(owner.token, 'developer');
    // Act
    const makeOwner = await setRole(admin.token, other.userId, 'owner');
    const unmakeOwner = await setRole(admin.token, owner.userId, 'admin');
    const removeOwner = await remove(admin.token, owner.userId);
    const inviteOwner = await invite(admin.token, uniqueEmail(), 'owner');
    const makeAnalyst = await setRole(admin.token, other.userId, 'analyst');
    // Assess
    for (const refused of [makeOwner, unmakeOwner, removeOwner, inviteOwner]) {
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
    }
    expect(makeAnalyst.body).toMatchObject({ id: other.userId, role: 'analyst' });
  });
});

describe('sessions', () => {
  it('ends a session at sign-out', async () => {
    const owner = await ownerSignUp();
    const out = await call(signOut, 'POST', '/api/auth/sign-out', owner.token);
    const after = await members(owner.token);
    const outAgain = await call(signOut, 'POST', '/api/auth/sign-out', owner.token);
    expect(out.body).toEqual({ object: 'session', signed_out: true });
    expect(after.status).toBe(401);
    expect(outAgain.status).toBe(401);
  });

  it('lasts 12 hours', async () => {
    const start = realNow();
    clock.now = () => start;
    const owner = await ownerSignUp();
    clock.now = () => start + 12 * HOUR - 1_000;
    const late = await members(owner.token);
    clock.now = () => start + 12 * HOUR;
    const expired = await members(owner.token);
    expect(late.status).toBe(200);
    expect(expired.status).toBe(401);
  });

  it("signs the local runtime's demo e-mail into its merchant as owner", async () => {
    const demo = await createDemoMerchant(uniqueEmail('demo'), { payments: false });
    const session = await signIn(demo.email);
    const team = await members(session.body.token);
    expect(session.body).toMatchObject({ merchant_id: demo.merchantId, role: 'owner' });
    expect(team.body.data).toEqual([expect.objectContaining({ email: demo.email, role: 'owner' })]);
  });
});

describe('an attacker', () => {
  it("cannot list or change another merchant's members with its own token", async () => {
    // Prepare
    const a = await ownerSignUp();
    const b = await ownerSignUp();
    const bMember = await join(b.token, 'developer');
    // Act
    const listed = await members(a.token);
    const changed = await setRole(a.token, bMember.userId, 'owner');
    const removed = await remove(a.token, b.userId);
    const bTeam = await members(b.token);
    // Assess
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual([a.userId]);
    expect(changed.status).toBe(404);
    expect(removed.status).toBe(404);
    expect(removed.body.error.message).toBe(`Resource not found: no team member ${b.userId}`);
    expect(bTeam.body.data).toHaveLength(2);
  });

  it("cannot revoke another merchant's invitation", async () => {
    const a = await ownerSignUp();
    const b = await ownerSignUp();
    const invited = await invite(b.token, uniqueEmail(), 'admin');
    const revoked = await call(revokeInvitation, 'DELETE', `/api/team/invitations/${invited.body.id}`, a.token);
    expect(revoked.status).toBe(404);
  });

  it("cannot accept someone else's invitation: the id alone is not enough", async () => {
    // Prepare
    const owner = await ownerSignUp();
    const victim = uniqueEmail('victim');
    const invited = await invite(owner.token, victim, 'admin');
    const attacker = await ownerSignUp();
    const { apiKey } = await newMerchant();
    // Act
    const withOwnSession = await accept(attacker.token, invited.body.id);
    const withApiKey = await accept(apiKey, invited.body.id);
    const withNothing = await invokeHttp(acceptInvitation, apiEvent({ method: 'POST', path: `/api/team/invitations/${invited.body.id}/accept` }));
    const victimSession = await signIn(victim);
    // Assess
    expect(withOwnSession.status).toBe(404);
    expect(withApiKey.status).toBe(401);
    expect(withNothing.status).toBe(401);
    expect((await members(owner.token)).body.data).toHaveLength(1);
    expect(victimSession.body.invitations).toEqual([expect.objectContaining({ id: invited.body.id })]);
  });
});
