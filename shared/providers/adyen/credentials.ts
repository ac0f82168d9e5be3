import * as v from 'valibot';

/** Adyen's API URL prefix of a live company account: `[random]-[company name]`, one label of a host name. */
const LIVE_URL_PREFIX = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;

export const adyenCredentialsSchema = v.strictObject({
  api_key: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('is required'),
    v.regex(/^\S+$/, 'must have no spaces'),
    v.minLength(20, 'is too short for an Adyen API key'),
    v.maxLength(1000),
  ),
  merchant_account: v.pipe(v.string(), v.trim(), v.nonEmpty('is required'), v.regex(/^\S+$/, 'must have no spaces'), v.maxLength(80)),
  /** the webhook HMAC key (hex), for verifying Adyen's notifications */
  hmac_key: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^(?:[0-9A-Fa-f]{2})+$/, 'a hexadecimal key'))),
  /** the live endpoint prefix from the Customer Area (Developers > API URLs), e.g. `1797a841fbb37ca7-AdyenDemo` */
  live_url_prefix: v.optional(v.pipe(v.string(), v.trim(), v.regex(LIVE_URL_PREFIX, 'a prefix like 1797a841fbb37ca7-AdyenDemo'))),
});
export type AdyenCredentials = v.InferOutput<typeof adyenCredentialsSchema>;
