import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as requestOtp } from '../../functions/auth/request-otp.ts';
import { handler as verifyOtp } from '../../functions/auth/verify-otp.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { clock } from '../../shared/model/clock.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer } from '../support/merchant.ts';

const uniqueEmail = () => `owner-${randomUUID()}@example.test`;
const uniqueIp = () => `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`;

const post = (handler: typeof requestOtp, path: string, body: unknown, sourceIp = uniqueIp()) =>
  invokeHttp(handler, apiEvent({ method: 'POST', path, body, sourceIp }));

/** The code as the merchant reads it from the e-mail (the local outbox). */
function otpSentTo(email: string): string {
  const mail = listLocalOutbox().find((m) => m.to === email); // newest first
  const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
  if (!code) throw new Error(`no OTP e-mail for ${email}`);
  return code;
}

async function startSignIn(email = uniqueEmail()) {
  const res = await post(requestOtp, '/api/auth/request-otp', { email });
  expect(res.status).toBe(200);
  return { email, request_id: res.body.request_id as string, otp: otpSentTo(email) };
}

const wrongCode = (otp: string) => String((Number(otp) + 1) % 1_000_000).padStart(6, '0');

describe('sign-in with a one-time password', () => {
  it('sends a 6-digit code valid 600 s, and the code signs in with a token that reaches the API', async () => {
    // Prepare
    const email = uniqueEmail();
    // Act
    const requested = await post(requestOtp, '/api/auth/request-otp', { email: email.toUpperCase() });
    const otp = otpSentTo(email);
    const verified = await post(verifyOtp, '/api/auth/verify-otp', { request_id: requested.body.request_id, otp });
    const list = await invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers: bearer(verified.body.token) }));
    // Assess
    expect(requested.body).toEqual({ request_id: expect.stringMatching(/^req_[0-9a-z]{26}$/), expires_in: 600 });
    expect(requested.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      token: expect.stringMatching(/^sess_[0-9A-Za-z]{43}$/),
      merchant_id: expect.stringMatching(/^mer_/),
      user_id: expect.stringMatching(/^usr_/),
      role: 'owner',
      memberships: [{ merchant_id: verified.body.merchant_id, business_name: email, role: 'owner' }],
      invitations: [],
    });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ data: [], has_more: false });
  });

  it('signs the same e-mail into the same merchant every time', async () => {
    const email = uniqueEmail();
    const first = await startSignIn(email);
    const a = await post(verifyOtp, '/api/auth/verify-otp', { request_id: first.request_id, otp: first.otp });
    const second = await startSignIn(email);
    const b = await post(verifyOtp, '/api/auth/verify-otp', { request_id: second.request_id, otp: second.otp });
    expect(b.body.merchant_id).toBe(a.body.merchant_id);
  });

  it('answers request-otp the same for a known and an unknown address', async () => {
    const known = await startSignIn();
    await post(verifyOtp, '/api/auth/verify-otp', { request_id: known.request_id, otp: known.otp });
    const again = await post(requestOtp, '/api/auth/request-otp', { email: known.email });
    const unknown = await post(requestOtp, '/api/auth/request-otp', { email: uniqueEmail() });
    expect(Object.keys(again.body)).toEqual(Object.keys(unknown.body));
    expect(again.status).toBe(unknown.status);
  });

  it('accepts a code once only', async () => {
    const { request_id, otp } = await startSignIn();
    const first = await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp });
    const second = await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp });
    expect(first.status).toBe(200);
    expect(second.status).toBe(401);
    expect(second.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_otp', message: 'Invalid API key' });
  });

  it('kills the request after 5 wrong codes, even for the right code', async () => {
    const { request_id, otp } = await startSignIn();
    for (let i = 0; i < 5; i++) {
      const wrong = await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp: wrongCode(otp) });
      expect(wrong.body.error.code).toBe('invalid_otp');
    }
    const right = await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp });
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('otp_attempts_exceeded');
  });

  it('compares at most 5 of 40 wrong codes sent at once, and refuses the right code after them', async () => {
    // Prepare
    const { request_id, otp } = await startSignIn();
    // Act: 40 wrong guesses in parallel, then the right code
    const answers = await Promise.all(Array.from({ length: 40 }, () => post(verifyOtp, '/api/auth/verify-otp', { request_id, otp: wrongCode(otp) })));
    const right = await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp });
    // Assess: a guess that was compared answers invalid_otp; every other one found no try left
    const codes = answers.map((a) => a.body.error.code as string);
    expect(answers.every((a) => a.status === 401)).toBe(true);
    expect(codes.filter((c) => c === 'invalid_otp').length).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c !== 'invalid_otp').every((c) => c === 'otp_attempts_exceeded')).toBe(true);
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('otp_attempts_exceeded');
  });

  it('stops codes for an address after 20 wrong ones in an hour, over all its requests, until the next hour', async () => {
    // Prepare: a fixed point in an hour, and four requests for one address, each guessed wrong five times
    const realNow = clock.now;
    const hourStart = Math.floor(realNow() / 3_600_000) * 3_600_000;
    clock.now = () => hourStart + 60_000;
    try {
      const email = uniqueEmail();
      for (let r = 0; r < 4; r++) {
        const { request_id, otp } = await startSignIn(email);
        for (let i = 0; i < 5; i++) await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp: wrongCode(otp) });
      }
      // Act: a fifth request with the right code, in this hour and in the next
      const fresh = await startSignIn(email);
      const thisHour = await post(verifyOtp, '/api/auth/verify-otp', { request_id: fresh.request_id, otp: fresh.otp });
      clock.now = () => hourStart + 3_600_000 + 60_000;
      const later = await startSignIn(email);
      const nextHour = await post(verifyOtp, '/api/auth/verify-otp', { request_id: later.request_id, otp: later.otp });
      // Assess
      expect(thisHour.status).toBe(401);
      expect(thisHour.body.error.code).toBe('otp_attempts_exceeded');
      expect(nextHour.status).toBe(200);
    } finally {
      clock.now = realNow;
    }
  });

  it('lets no more than 20 wrong codes an hour through for an address, even sent all at once', async () => {
    const realNow = clock.now;
    const hourStart = Math.floor(realNow() / 3_600_000) * 3_600_000;
    clock.now = () => hourStart + 60_000;
    try {
      // Prepare: six requests for one address
      const email = uniqueEmail();
      const requests = [];
      for (let r = 0; r < 6; r++) requests.push(await startSignIn(email));
      // Act: five wrong codes on each, all in parallel (30 guesses)
      const answers = await Promise.all(
        requests.flatMap(({ request_id, otp }) =>
          Array.from({ length: 5 }, () => post(verifyOtp, '/api/auth/verify-otp', { request_id, otp: wrongCode(otp) })),
        ),
      );
      // Assess: 20 were compared, the other 10 refused unread
      const codes = answers.map((a) => a.body.error.code as string);
      expect(codes.filter((c) => c === 'invalid_otp')).toHaveLength(20);
      expect(codes.filter((c) => c === 'otp_attempts_exceeded')).toHaveLength(10);
    } finally {
      clock.now = realNow;
    }
  });

  it('still accepts the right code after 4 wrong ones', async () => {
    const { request_id, otp } = await startSignIn();
    for (let i = 0; i < 4; i++) await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp: wrongCode(otp) });
    const right = await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp });
    expect(right.status).toBe(200);
  });

  it('refuses a code after its 10 minutes', async () => {
    const { request_id, otp } = await startSignIn();
    const realNow = clock.now;
    clock.now = () => realNow() + 600_001;
    try {
      const late = await post(verifyOtp, '/api/auth/verify-otp', { request_id, otp });
      expect(late.status).toBe(401);
      expect(late.body.error.code).toBe('otp_expired');
    } finally {
      clock.now = realNow;
    }
  });

  it('answers 401 for an unknown request id', async () => {
    const res = await post(verifyOtp, '/api/auth/verify-otp', { request_id: 'req_01jdxq3m5n6p7r8s9t0v1w2x3y', otp: '123456' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_otp');
  });

  it.each([
    ['no e-mail', {}, 'email'],
    ['a malformed e-mail', { email: 'not-an-email' }, 'email'],
    ['a number as e-mail', { email: 7 }, 'email'],
  ])('answers 400 to request-otp with %s', async (_case, body, param) => {
    const res = await post(requestOtp, '/api/auth/request-otp', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/^Invalid request body: ./), param });
  });

  it.each([
    ['a 5-digit code', { otp: '12345' }, 'otp'],
    ['a numeric code', { otp: 123456 }, 'otp'],
    ['no request id', { request_id: undefined, otp: '123456' }, 'request_id'],
  ])('answers 400 to verify-otp with %s', async (_case, override, param) => {
    const valid: Record<string, unknown> = { request_id: 'req_01jdxq3m5n6p7r8s9t0v1w2x3y', otp: '123456' };
    const body = { ...valid, ...override };
    const res = await post(verifyOtp, '/api/auth/verify-otp', body);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('limits request-otp to 100 a minute per client IP: the 101st is a 429 with Retry-After', async () => {
    // Prepare: one IP, one fixed minute window
    const ip = uniqueIp();
    const realNow = clock.now;
    const windowStart = Math.floor(realNow() / 60_000) * 60_000;
    clock.now = () => windowStart + 30_000;
    try {
      // Act
      const answers = [];
      for (let i = 0; i < 100; i++) answers.push(await post(requestOtp, '/api/auth/request-otp', { email: uniqueEmail() }, ip));
      const limited = await post(requestOtp, '/api/auth/request-otp', { email: uniqueEmail() }, ip);
      const otherIp = await post(requestOtp, '/api/auth/request-otp', { email: uniqueEmail() }, uniqueIp());
      // Assess
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(answers[0]!.headers['x-ratelimit-limit']).toBe('100');
      expect(answers[0]!.headers['x-ratelimit-remaining']).toBe('99');
      expect(answers[99]!.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', message: 'Rate limit exceeded (100/min)' });
      expect(limited.headers['retry-after']).toBe('30');
      expect(limited.headers['x-ratelimit-reset']).toBe(String((windowStart + 60_000) / 1000));
      expect(otherIp.status).toBe(200);
    } finally {
      clock.now = realNow;
    }
  });
});
