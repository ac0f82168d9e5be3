import Stripe from 'stripe';
import * as v from 'valibot';
import type { ProviderModule, Verification } from '../types.ts';
import { clientFor, send } from './client.ts';
import { StripeConnector } from './connector.ts';

export const StripeCredentials = v.object({
  secret_key: v.pipe(v.string(), v.regex(/^(sk|rk)_(test|live)_[0-9A-Za-z_]{8,247}$/, 'a Stripe secret or restricted key (sk_test_…, rk_live_…)')),
  webhook_secret: v.optional(v.pipe(v.string(), v.regex(/^whsec_[0-9A-Za-z+/=_]{8,250}$/, 'a Stripe webhook signing secret (whsec_…)'))),
});
export type StripeCredentials = v.InferOutput<typeof StripeCredentials>;

const keyMode = (secretKey: string) => (/^(sk|rk)_live_/.test(secretKey) ? 'live' : 'test');

export const stripeProvider: ProviderModule<StripeCredentials> = {
  provider: 'stripe',
  credentialsSchema: StripeCredentials,

  hint: (credentials) => `…${credentials.secret_key.slice(-4)}`,

  modeMismatch(credentials, mode) {
    const keys = keyMode(credentials.secret_key);
    return keys === mode ? undefined : `a Stripe ${keys} key (${credentials.secret_key.slice(0, 8)}…) cannot act in ${mode} mode`;
  },

  /** One authenticated read-only call: the account's balance. */
  async verify(credentials, mode, signal): Promise<Verification> {
    const sent = await send(() => clientFor(credentials.secret_key).balance.retrieve(), signal);
    if (sent.ok) {
      return sent.value.livemode === (mode === 'live')
        ? { ok: true }
        : { ok: false, reason: `Stripe answered for ${sent.value.livemode ? 'live' : 'test'} mode` };
    }
    // Stripe's own words when it answered (401: "Invalid API Key provided: sk_test_****abcd"), else why it did not.
    const { error } = sent;
    if (error instanceof Stripe.errors.StripeError && error.statusCode) return { ok: false, reason: error.message || `HTTP ${error.statusCode}` };
    return { ok: false, reason: `Stripe could not be reached: ${error instanceof Error ? error.message : 'no answer in time'}` };
  },

  connect: (credentials) => new StripeConnector(clientFor(credentials.secret_key)),
};
