import { providerDeadlines } from './deadlines.ts';
import { SandboxConnector } from './sandbox.ts';
import {
  type AuthorizeRequest,
  type AuthorizeResult,
  type Connector,
  type LookupResult,
  PROVIDERS,
  type ProviderModule,
  type ProviderName,
} from './types.ts';

export * from './types.ts';
export { FEES, feeFor, feeOf } from './fees.ts';

/**
 * Each provider's live integration on its own API (shared/providers/<name>/), used through connector accounts. Loaded
 * on first use: most functions never call a live provider, and the SDKs would lengthen every cold start.
 */
const liveModules: Record<ProviderName, () => Promise<ProviderModule>> = {
  stripe: async () => (await import('./stripe/index.ts')).stripeProvider as unknown as ProviderModule,
  adyen: async () => (await import('./adyen/index.ts')).adyenProvider as unknown as ProviderModule,
  braintree: async () => (await import('./braintree/index.ts')).braintreeProvider as unknown as ProviderModule,
};

export const providerModule = (provider: ProviderName): Promise<ProviderModule> => liveModules[provider]();

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
