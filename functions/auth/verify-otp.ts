import { verifyOtp } from '../../shared/domain/otp.ts';
import { http } from '../../shared/http/index.ts';
import { VerifyOtpBody } from '../../shared/schemas/auth.ts';
import { Session } from '../../shared/schemas/responses/team.ts';

export const handler = http({ auth: 'public', body: VerifyOtpBody, response: Session, errors: [401] }, async ({ body, requestId, sourceIp, raw }) =>
  verifyOtp(body.request_id, body.otp, body.merchant_id, { request_id: requestId, ip: sourceIp, user_agent: raw.headers['user-agent'] ?? null }),
);
