import { providerDeadlines } from './deadlines.ts';
import { SandboxConnector } from './sandbox.ts';
import {
  type AuthorizeRequest,
  type AuthorizeResult,
  type Connector,
  type LookupResult,
  PROVIDERS,
  type ProviderFollowUp,
  type ProviderModule,
  type ProviderName,
  type ProviderPayouts,
  type ProviderPlugin,
} from './types.ts';

export * from './types.ts';
export { FEES, feeFor, feeOf } from './fees.ts';
export { sandboxDisputeDesk } from './sandbox.ts';

/**
 * Each provider's live integration on its own API (shared/providers/<name>/), used through connector accounts: one
 * plugin per provider, the same files in each folder, every part loaded on first use (most functions never call a
 * live provider, and the SDKs would lengthen every cold start).
 */
const PLUGINS: Readonly<Record<ProviderName, ProviderPlugin>> = {
  stripe: {
    connection: async () => (await import('./stripe/index.ts')).stripeProvider,
    followUp: async () => (await import('./stripe/follow-up.ts')).stripeFollowUp,
    payouts: async () => (await import('./stripe/payouts.ts')).stripePayouts,
  },
  adyen: {
    connection: async () => (await import('./adyen/index.ts')).adyenProvider,
    followUp: async () => (await import('./adyen/follow-up.ts')).adyenFollowUp,
    payouts: async () => (await import('./adyen/payouts.ts')).adyenPayouts,
  },
  braintree: {
    connection: async () => (await import('./braintree/index.ts')).braintreeProvider,
    followUp: async () => (await import('./braintree/follow-up.ts')).braintreeFollowUp,
    payouts: async () => (await import('./braintree/payouts.ts')).braintreePayouts,
  },
};

export const providerModule = (provider: ProviderName): Promise<ProviderModule> => PLUGINS[provider].connection();
export const followUpModule = (provider: ProviderName): Promise<ProviderFollowUp> => PLUGINS[provider].followUp();
export const payoutsModule = (provider: ProviderName): Promise<ProviderPayouts> => PLUGINS[provider].payouts();

/** The built-in, offline sandbox of each provider: test mode's stand-in for a provider with no connected test account. */
const sandboxes: Record<ProviderName, Connector> = {
  stripe: new SandboxConnector('stripe'),
  adyen: new SandboxConnector('adyen'),
  braintree: new SandboxConnector('braintree'),
};

export const sandboxFor = (provider: ProviderName): Connector => sandboxes[provider];

export const isProvider = (value: string): value is ProviderName => (PROVIDERS as readonly string[]).includes(value);

export { providerDeadlines };

/** Authorizes at `connector`, or answers `unknown` once the deadline passes (the attempt is aborted). */
export async function authorizeWithin(connector: Connector, request: AuthorizeRequest): Promise<AuthorizeResult> {
  const started = performance.now();
  const signal = AbortSignal.timeout(providerDeadlines.authorizeMs);
  const timedOut = (): AuthorizeResult => ({ outcome: 'unknown', latencyMs: Math.ceil(performance.now() - started) });
  const deadline = new Promise<AuthorizeResult>((resolve) => signal.addEventListener('abort', () => resolve(timedOut()), { once: true }));
  const answer = connector.authorize({ ...request, signal }).catch((error: unknown) => {
    if (signal.aborted) return timedOut();
    throw error;
  });
  return Promise.race([answer, deadline]);
}

/** What `connector` holds under `idempotencyKey`, or `unknown` once the look-up's deadline passes. */
export async function lookupWithin(connector: Connector, idempotencyKey: string, replay?: AuthorizeRequest): Promise<LookupResult> {
  const signal = AbortSignal.timeout(providerDeadlines.lookupMs);
  const deadline = new Promise<LookupResult>((resolve) => signal.addEventListener('abort', () => resolve({ found: 'unknown' }), { once: true }));
  return Promise.race([
    connector.lookup(idempotencyKey, signal, replay && { ...replay, signal }).catch((): LookupResult => ({ found: 'unknown' })),
    deadline,
  ]);
}
