/**
 * The three provider fakes together: what `npm start` runs (so a merchant can connect test accounts offline, see
 * infra/local/provider-fakes.ts) and what end-to-end tests start. `env` points the connectors at them; `credentials`
 * are the accounts they accept.
 */
import type { ProviderName } from '../../../shared/providers/types.ts';
import { ADYEN_FAKE_CREDENTIALS, type AdyenFakeServer, startAdyenFake } from './adyen/server.ts';
import { type BraintreeFake, FAKE_BRAINTREE_CREDENTIALS, startBraintreeFake } from './braintree/server.ts';
import { STRIPE_FAKE_CREDENTIALS, type StripeFake, startStripeFake } from './stripe/server.ts';
import type { FakeServer } from './types.ts';

/** Test-mode credentials each fake accepts, as `POST /api/connectors` takes them (fake: safe to print). */
export const FAKE_CREDENTIALS = {
  stripe: STRIPE_FAKE_CREDENTIALS,
  adyen: ADYEN_FAKE_CREDENTIALS,
  braintree: FAKE_BRAINTREE_CREDENTIALS,
} as const;

/** How each fake starts, and the variable that points its connector at it. */
export const FAKES: Readonly<
  Record<ProviderName, { baseUrlVar: string; start(options: { port?: number; notificationDelayMs?: number }): Promise<FakeServer> }>
> = {
  stripe: { baseUrlVar: 'STRIPE_API_BASE_URL', start: startStripeFake },
  adyen: { baseUrlVar: 'ADYEN_CHECKOUT_BASE_URL', start: startAdyenFake },
  braintree: { baseUrlVar: 'BRAINTREE_GATEWAY_URL', start: startBraintreeFake },
};

export interface ProviderFakes {
  stripe: StripeFake;
  adyen: AdyenFakeServer;
  braintree: BraintreeFake;
  /** STRIPE_API_BASE_URL, ADYEN_CHECKOUT_BASE_URL, BRAINTREE_GATEWAY_URL */
  env: Record<string, string>;
  /** test-mode credentials each fake accepts, as `POST /api/connectors` takes them */
  credentials: typeof FAKE_CREDENTIALS;
  close(): Promise<void>;
}

export async function startProviderFakes(ports: { stripe?: number; adyen?: number; braintree?: number } = {}): Promise<ProviderFakes> {
  const [stripe, adyen, braintree] = await Promise.all([
    startStripeFake({ port: ports.stripe }),
    startAdyenFake({ port: ports.adyen }),
    startBraintreeFake({ port: ports.braintree }),
  ]);
  return {
    stripe,
    adyen,
    braintree,
    env: { STRIPE_API_BASE_URL: stripe.url, ADYEN_CHECKOUT_BASE_URL: adyen.url, BRAINTREE_GATEWAY_URL: braintree.url },
    credentials: FAKE_CREDENTIALS,
    close: async () => void (await Promise.all([stripe.close(), adyen.close(), braintree.close()])),
  };
}
