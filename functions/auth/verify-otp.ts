import { verifyOtp } from '../../shared/domain/otp.ts';
import { http } from '../../shared/http/index.ts';
import { VerifyOtpBody } from '../../shared/schemas/auth.ts';

export const handler = http({ auth: 'public', body: VerifyOtpBody }, async ({ body }) => verifyOtp(body.request_id, body.otp));
