import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as requestOtp } from '../../functions/auth/request-otp.ts';
import { handler as getSession } from '../../functions/auth/session/get.ts';
import { handler as switchSession } from '../../functions/auth/session/update.ts';
import { handler as signOut } from '../../functions/auth/sign-out.ts';
import { handler as verifyOtp } from '../../functions/auth/verify-otp.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { handler as acceptInvitation } from '../../functions/team/invitations/accept.ts';
import { handler as createInvitation } from '../../functions/team/invitations/create.ts';
import { handler as updateMember } from '../../functions/team/members/update.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { apiEvent, invokeHttp, type HttpResult } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { startTestGateway } from '../support/runtime.ts';

type Handler = Parameters<typeof invokeHttp>[0];

const uniqueIp = () => `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`;

/** What the browser holds after a cookie sign-in: the cookie (as it sends it back) and the page's CSRF token. */
interface Browser {
  cookie: string;
  csrf: string;
  signedIn: HttpResult;
}

/** Signs an e-mail in as the dashboard does (`session: "cookie"`), with the code its mail got. */
async function cookieSignIn(email: string): Promise<Browser> {
  const requested = await invokeHttp(requestOtp, apiEvent({ method: 'POST', path: '/api/auth/request-otp', body: { email }, sourceIp: uniqueIp() }));
  const otp = /\b(\d{6})\b/.exec(listLocalOutbox().find((m) => m.to === email)?.text ?? '')?.[1];
  const body = { request_id: requested.body.request_id, otp, session: 'cookie' };
  const signedIn = await invokeHttp(verifyOtp, apiEvent({ method: 'POST', path: '/api/auth/verify-otp', body, sourceIp: uniqueIp() }));
  expect(signedIn.status).toBe(200);
  return { cookie: signedIn.headers['set-cookie']!.split(';')[0]!, csrf: signedIn.body.csrf_token, signedIn };
}

/** A request a browser page makes with the cookie (and, when given, the X-CSRF-Token header). */
const withCookie = (handler: Handler, method: string, path: string, cookie: string, options: { csrf?: string; body?: unknown } = {}) =>
  invokeHttp(
    handler,
    apiEvent({
      method,
      path,
      headers: { Cookie: `theme=dark; ${cookie}`, ...(options.csrf !== undefined && { 'X-CSRF-Token': options.csrf }) },
      body: options.body,
    }),
  );

/** A member of the merchant with `role`, signed in to the dashboard (the e-mail read from its own session). */
async function memberInBrowser(merchantId: string, role: 'owner' | 'admin') {
  const token = await sessionOf(merchantId, role);
  const { body } = await invokeHttp(getSession, apiEvent({ method: 'GET', path: '/api/auth/session', headers: bearer(token) }));
  return { email: body.email as string, userId: body.user_id as string, browser: await cookieSignIn(body.email) };
}

describe('dashboard sessions: the cookie and its CSRF token', () => {
  it('signs in with an HttpOnly SameSite=Strict cookie on /api, answers the CSRF token but never the session token', async () => {
    // Prepare
    const email = `owner-${randomUUID()}@example.test`;
    // Act
    const { signedIn, cookie, csrf } = await cookieSignIn(email);
    const session = await withCookie(getSession, 'GET', '/api/auth/session', cookie);
    const customers = await withCookie(listCustomers, 'GET', '/api/customers', cookie);
    // Assess
    expect(signedIn.headers['set-cookie']).toMatch(/^po_session=sess_[0-9A-Za-z]{43}; Path=\/api; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(signedIn.body).toEqual({
      merchant_id: expect.stringMatching(/^mer_/),
      user_id: expect.stringMatching(/^usr_/),
      role: 'owner',
      memberships: [{ merchant_id: signedIn.body.merchant_id, business_name: email, role: 'owner' }],
      invitations: [],
      csrf_token: expect.stringMatching(/^[0-9A-Za-z]{43}$/),
    });
    expect(signedIn.rawBody).not.toContain(cookie.slice('po_session='.length));
    expect(session.status).toBe(200);
    expect(session.body).toEqual({
      user_id: signedIn.body.user_id,
      email,
      merchant_id: signedIn.body.merchant_id,
      role: 'owner',
      memberships: signedIn.body.memberships,
      invitations: [],
      csrf_token: csrf,
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(Date.parse(session.body.expires_at) - Date.now()).toBeGreaterThan(11.9 * 3_600_000);
    expect(customers.status).toBe(200);
  });

  it('refuses a write through the cookie without, with a wrong or with another session’s CSRF token, and changes nothing', async () => {
    // Prepare
    const victim = await cookieSignIn(`victim-${randomUUID()}@example.test`);
    const attacker = await cookieSignIn(`attacker-${randomUUID()}@example.test`);
    const create = (csrf?: string) =>
      withCookie(createCustomer, 'POST', '/api/customers', victim.cookie, { csrf, body: { email: 'planted@evil.test' } });
    // Act
    const refused = [
      await create(),
      await create(''),
      await create(victim.csrf.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))),
      await create(attacker.csrf),
    ];
    const listed = await withCookie(listCustomers, 'GET', '/api/customers', victim.cookie);
    const allowed = await create(victim.csrf);
    // Assess
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({
        type: 'permission_error',
        code: 'csrf_token_invalid',
        message: expect.stringContaining('X-CSRF-Token'),
      });
    }
    expect(listed.body.data).toEqual([]);
    expect(allowed.status).toBe(200);
  });

  it('refuses an API key or two session tokens in the cookie (401), and a Bearer session’s token in it writes nothing', async () => {
    // Prepare
    const merchant = await newMerchant();
    const bearerSession = await sessionOf(merchant.merchantId);
    const cookieOf = (value: string) => `po_session=${value}`;
    // Act
    const keyRead = await withCookie(listCustomers, 'GET', '/api/customers', cookieOf(merchant.apiKey));
    const keyWrite = await withCookie(createCustomer, 'POST', '/api/customers', cookieOf(merchant.apiKey), { csrf: 'x', body: {} });
    const twoCookies = await withCookie(listCustomers, 'GET', '/api/customers', `${cookieOf(bearerSession)}; ${cookieOf(bearerSession)}`);
    const bearerInCookie = await withCookie(createCustomer, 'POST', '/api/customers', cookieOf(bearerSession), { csrf: '', body: {} });
    const bearerView = await invokeHttp(getSession, apiEvent({ method: 'GET', path: '/api/auth/session', headers: bearer(bearerSession) }));
    // Assess
    for (const answer of [keyRead, keyWrite, twoCookies]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    }
    expect(keyRead.body.error.message).toContain('session token only');
    expect(bearerInCookie.status).toBe(403);
    expect(bearerView.status).toBe(200);
    expect(bearerView.body.csrf_token).toBeNull();
  });

  it('signs out through the cookie (with its CSRF token): the cookie is cleared and the session answers 401', async () => {
    // Prepare
    const { cookie, csrf } = await cookieSignIn(`owner-${randomUUID()}@example.test`);
    // Act
    const forged = await withCookie(signOut, 'POST', '/api/auth/sign-out', cookie);
    const out = await withCookie(signOut, 'POST', '/api/auth/sign-out', cookie, { csrf });
    const after = await withCookie(getSession, 'GET', '/api/auth/session', cookie);
    // Assess
    expect(forged.status).toBe(403);
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']).toBe('po_session=; Path=/api; HttpOnly; SameSite=Strict; Max-Age=0');
    expect(after.status).toBe(401);
    expect(after.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', request_id: expect.any(String) });
  });

  it('switches the session to another merchant of the member, not to one they are no member of', async () => {
    // Prepare: a member of merchant A, invited to and joined B
    const [a, b, stranger] = await Promise.all([newMerchant(), newMerchant(), newMerchant()]);
    const member = await memberInBrowser(a.merchantId, 'admin');
    const invited = await invokeHttp(
      createInvitation,
      apiEvent({
        method: 'POST',
        path: '/api/team/invitations',
        headers: bearer(await sessionOf(b.merchantId)),
        body: { email: member.email, role: 'admin' },
      }),
    );
    const accepted = await withCookie(acceptInvitation, 'POST', `/api/team/invitations/${invited.body.id}/accept`, member.browser.cookie, {
      csrf: member.browser.csrf,
    });
    expect(accepted.status).toBe(200);
    const { cookie, csrf } = member.browser;
    // Act
    const forged = await withCookie(switchSession, 'PUT', '/api/auth/session', cookie, { body: { merchant_id: b.merchantId } });
    const intoStranger = await withCookie(switchSession, 'PUT', '/api/auth/session', cookie, { csrf, body: { merchant_id: stranger.merchantId } });
    const stillA = await withCookie(getSession, 'GET', '/api/auth/session', cookie);
    const intoB = await withCookie(switchSession, 'PUT', '/api/auth/session', cookie, { csrf, body: { merchant_id: b.merchantId } });
    const created = await withCookie(createCustomer, 'POST', '/api/customers', cookie, { csrf, body: { email: 'in-b@example.test' } });
    const listedInB = await invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers?limit=100', headers: bearer(b.apiKey) }));
    // Assess
    expect(forged.status).toBe(403);
    expect(intoStranger.status).toBe(401);
    expect(intoStranger.body.error).toMatchObject({ type: 'authentication_error', message: expect.stringContaining('not a member of') });
    expect(stillA.body.merchant_id).toBe(a.merchantId);
    expect(intoB.status).toBe(200);
    expect(intoB.body).toMatchObject({ merchant_id: b.merchantId, role: 'admin', csrf_token: csrf, email: member.email });
    expect(intoB.body.memberships.map((m: { merchant_id: string }) => m.merchant_id).sort()).toEqual([a.merchantId, b.merchantId].sort());
    expect(created.status).toBe(200);
    expect(listedInB.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
  });

  it('counts a role change from the member’s next cookie request', async () => {
    // Prepare
    const merchant = await newMerchant();
    const member = await memberInBrowser(merchant.merchantId, 'admin');
    const { cookie, csrf } = member.browser;
    const before = await withCookie(createCustomer, 'POST', '/api/customers', cookie, { csrf, body: { email: 'a@example.test' } });
    // Act
    const demoted = await invokeHttp(
      updateMember,
      apiEvent({
        method: 'PUT',
        path: `/api/team/members/${member.userId}`,
        headers: bearer(await sessionOf(merchant.merchantId)),
        body: { role: 'analyst' },
      }),
    );
    const after = await withCookie(createCustomer, 'POST', '/api/customers', cookie, { csrf, body: { email: 'b@example.test' } });
    const read = await withCookie(listCustomers, 'GET', '/api/customers', cookie);
    const shown = await withCookie(getSession, 'GET', '/api/auth/session', cookie);
    // Assess
    expect(before.status).toBe(200);
    expect(demoted.status).toBe(200);
    expect(after.status).toBe(403);
    expect(after.body.error).toMatchObject({ code: 'permission_denied' });
    expect(read.status).toBe(200);
    expect(shown.body.role).toBe('analyst');
  });
});

describe('CORS: granted to no origin', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());

  it('answers no Access-Control-Allow-* header, to a preflight nor to a request from another origin', async () => {
    // Prepare
    const origin = { Origin: 'https://evil.example' };
    const merchant = await newMerchant();
    // Act
    const answers = await Promise.all([
      fetch(`${gateway.url}/api/customers`, {
        method: 'OPTIONS',
        headers: { ...origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-csrf-token' },
      }),
      fetch(`${gateway.url}/api/auth/session`, { method: 'OPTIONS', headers: { ...origin, 'Access-Control-Request-Method': 'GET' } }),
      fetch(`${gateway.url}/api/customers`, { headers: { ...origin, ...bearer(merchant.apiKey) } }),
      fetch(`${gateway.url}/api/auth/session`, { headers: origin }),
      fetch(`${gateway.url}/api/auth/request-otp`, { method: 'POST', headers: { ...origin, 'Content-Type': 'application/json' }, body: '{}' }),
    ]);
    // Assess
    expect(answers.map((a) => a.status)).toEqual([404, 404, 200, 401, 400]);
    for (const answer of answers) expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
