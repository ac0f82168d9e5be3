import { readSecret } from '../secrets.ts';
import { emailSender } from '../messaging/email.ts';
import * as otpRequests from '../store/otp-requests.ts';
import * as rateLimits from '../store/rate-limits.ts';
import { clock } from '../model/clock.ts';
import { constantTimeEqual, hmac, newOtp, sha256 } from '../model/credentials.ts';
import { type SessionKind, signIn } from './team.ts';
import { Unauthorized } from '../model/errors.ts';
import { newId } from '../model/ids.ts';
import type { AuditRequest } from '../model/audit.ts';

type SeenFrom = Pick<AuditRequest, 'request_id' | 'ip' | 'user_agent'>;
import { recordFailedSignIn, recordSignIn } from './audit-log.ts';

export const OTP_TTL_SECONDS = 600;
export const OTP_MAX_ATTEMPTS = 5;
/**
 * Wrong codes per e-mail address and clock hour, over all of its requests. Each request allows 5 tries, but anyone
 * can ask for many requests: without this bound one client could guess about 500 codes a minute at one account.
 */
export const OTP_MAX_WRONG_PER_EMAIL_HOUR = 20;
const HOUR_MS = 60 * 60 * 1000;

/** The OTP is stored only as an HMAC bound to its request, so a leaked table reveals no code. */
const otpHmac = async (requestId: string, otp: string) => hmac(await readSecret('otp'), `${requestId}:${otp}`);

/** Sends a 6-digit code to the address. Known and unknown addresses get the same answer. */
export async function requestOtp(email: string): Promise<{ request_id: string; expires_in: number }> {
  const otp = newOtp();
  const request_id = newId('otpRequest');
  await otpRequests.putOtpRequest({
    request_id,
    email,
    otp_hmac: await otpHmac(request_id, otp),
    attempts: 0,
    used: false,
    expires_ms: clock.now() + OTP_TTL_SECONDS * 1000,
  });
  await emailSender.send({
    to: email,
    subject: 'Your sign-in code',
    text: `Your sign-in code is ${otp}. It expires in ${OTP_TTL_SECONDS / 60} minutes and works once.`,
  });
  return { request_id, expires_in: OTP_TTL_SECONDS };
}

/** What a guess that could not obtain a try answers (docs/api.md "Sign-in"). */
const REFUSED_TRY = { unknown: 'invalid_otp', used: 'invalid_otp', expired: 'otp_expired', exhausted: 'otp_attempts_exceeded' } as const;

/**
 * Exchanges a code for a 12 h session token (team.ts `signIn`: for `merchantId`, else the merchant last used).
 * Single use, at most 5 tries (then the request is dead), and at most 20 wrong codes an hour per address over all its
 * requests (then its codes wait for the next hour); compared in constant time.
 */
export async function verifyOtp(requestId: string, otp: string, merchantId: string | undefined, seen: SeenFrom, kind: SessionKind = 'bearer') {
  const now = clock.now();
  // The try is counted atomically before the code is compared: only a guess that obtained one is compared, so
  // guesses sent at once get no more than 5 comparisons between them, and a right code after them none.
  const attempt = await otpRequests.takeOtpTry(requestId, OTP_MAX_ATTEMPTS, now);
  if (!attempt.taken) throw new Unauthorized(REFUSED_TRY[attempt.reason]);
  const { request } = attempt;
  const hour = { start: now - (now % HOUR_MS), end: now - (now % HOUR_MS) + HOUR_MS };
  const address = sha256(request.email);
  // Every guess holds one of the address's wrong-code slots while it is compared (so parallel guesses cannot
  // outrun the limit); a right code gives its slot back. A guess refused here has used its try uncompared.
  if (!(await rateLimits.takeWindowSlot('otp-wrong', address, hour.start, hour.end, OTP_MAX_WRONG_PER_EMAIL_HOUR)))
    throw new Unauthorized('otp_attempts_exceeded');

  if (!constantTimeEqual(await otpHmac(requestId, otp), request.otp_hmac)) {
    await recordFailedSignIn(request.email, seen);
    throw new Unauthorized('invalid_otp');
  }
  await rateLimits.returnWindowSlot('otp-wrong', address, hour.start);
  if (!(await otpRequests.consumeOtp(requestId))) throw new Unauthorized('invalid_otp');

  const answer = await signIn(request.email, merchantId, kind);
  if (answer.merchant_id !== null)
    await recordSignIn('sign_in', { merchant_id: answer.merchant_id, user_id: answer.user_id, email: request.email, role: answer.role! }, seen);
  return answer;
}
