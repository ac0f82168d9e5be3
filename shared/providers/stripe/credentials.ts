import * as v from 'valibot';

export const stripeCredentialsSchema = v.object({
  secret_key: v.pipe(v.string(), v.regex(/^(sk|rk)_(test|live)_[0-9A-Za-z_]{8,247}$/, 'a Stripe secret or restricted key (sk_test_…, rk_live_…)')),
  webhook_secret: v.optional(v.pipe(v.string(), v.regex(/^whsec_[0-9A-Za-z+/=_]{8,250}$/, 'a Stripe webhook signing secret (whsec_…)'))),
});
export type StripeCredentials = v.InferOutput<typeof stripeCredentialsSchema>;
