import { verifyOtp } from '../../shared/domain/otp.ts';
import { http } from '../../shared/http/index.ts';
import { sessionCookie } from '../../shared/http/cookies.ts';
import { VerifyOtpBody } from '../../shared/schemas/auth.ts';
import { SignedIn } from '../../shared/schemas/responses/team.ts';

export const handler = http(
  { auth: 'public', body: VerifyOtpBody, response: SignedIn, errors: [401] },
  async ({ body, requestId, sourceIp, raw, baseUrl, responseHeaders }) => {
    const seen = { request_id: requestId, ip: sourceIp, user_agent: raw.headers['user-agent'] ?? null };
    const { token, ...answer } = await verifyOtp(body.request_id, body.otp, body.merchant_id, seen, body.session);
    if (body.session === 'bearer') return { token, ...answer };
    // the dashboard's session: the token only in the HttpOnly cookie, where no page script reads it
    responseHeaders['Set-Cookie'] = sessionCookie(token, baseUrl);
    return answer as typeof answer & { csrf_token: string };
  },
);
