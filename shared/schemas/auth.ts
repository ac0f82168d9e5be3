import * as v from 'valibot';
import { isId } from '../domain/ids.ts';
import { Email } from './common.ts';

export const RequestOtpBody = v.object({ email: Email });

export const VerifyOtpBody = v.object({
  request_id: v.pipe(v.string(), v.check((id) => isId('otpRequest', id))),
  otp: v.pipe(v.string(), v.regex(/^\d{6}$/)),
});
