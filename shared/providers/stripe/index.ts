import Stripe from 'stripe';
import type { ProviderModule, Verification } from '../types.ts';
import { clientFor, send } from './client.ts';
import { StripeConnector } from './connector.ts';
import { type StripeCredentials, stripeCredentialsSchema } from './credentials.ts';

export type { StripeCredentials } from './credentials.ts';

const keyMode = (secretKey: string) => (/^(sk|rk)_live_/.test(secretKey) ? 'live' : 'test');

export const stripeProvider: ProviderModule<StripeCredentials> = {
  provider: 'stripe',
  credentialsSchema: stripeCredentialsSchema,

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
