import * as v from 'valibot';
import { exampleId, idPattern } from '../model/ids.ts';
import { Email } from './common.ts';

export const RequestOtpBody = v.object({ email: Email });

export const VerifyOtpBody = v.object({
  request_id: v.pipe(v.string(), v.regex(idPattern('otpRequest'), 'the request_id from request-otp'), v.examples([exampleId('otpRequest')])),
  otp: v.pipe(v.string(), v.regex(/^\d{6}$/, '6 digits'), v.examples(['123456'])),
  merchant_id: v.pipe(
    v.optional(v.pipe(v.string(), v.regex(idPattern('merchant'), 'a merchant id (mer_…)'))),
    v.description('the merchant the session acts for (one the user is a member of); default: the one last used'),
    v.examples([exampleId('merchant')]),
  ),
  session: v.pipe(
    v.optional(v.picklist(['bearer', 'cookie']), 'bearer'),
    v.description(
      '`cookie`: the token goes into the HttpOnly `po_session` cookie, not the answer, which carries a `csrf_token` instead (the dashboard)',
    ),
  ),
});

export const SwitchSessionBody = v.object({
  merchant_id: v.pipe(
    v.string(),
    v.regex(idPattern('merchant'), 'a merchant id (mer_…)'),
    v.description('a merchant the user is a member of'),
    v.examples([exampleId('merchant')]),
  ),
});
