import { requestOtp } from '../../shared/domain/otp.ts';
import { http } from '../../shared/http/index.ts';
import { RequestOtpBody } from '../../shared/schemas/auth.ts';
import { OtpRequested } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'public', body: RequestOtpBody, rateLimit: { name: 'request-otp', limit: 100, per: 'ip' }, response: OtpRequested },
  async ({ body }) => requestOtp(body.email),
);
