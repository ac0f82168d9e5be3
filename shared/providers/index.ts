import { providerDeadlines } from './deadlines.ts';
import { SandboxConnector } from './sandbox.ts';
import { type AuthorizeRequest, type AuthorizeResult, type Connector, type LookupResult, PROVIDERS, type ProviderName } from './types.ts';

export * from './types.ts';
export { FEES, feeFor } from './fees.ts';

/**
 * The connector of a provider. Only sandbox back ends exist so far; a live connector will be chosen here when that
 * provider's live credentials are configured (and the payment is in live mode).
 */
const sandboxes: Record<ProviderName, Connector> = {
  stripe: new SandboxConnector('stripe'),
  adyen: new SandboxConnector('adyen'),
  braintree: new SandboxConnector('braintree'),
};

export const connectorFor = (provider: ProviderName, _livemode: boolean): Connector => sandboxes[provider];

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
export async function lookupWithin(connector: Connector, idempotencyKey: string): Promise<LookupResult> {
  const signal = AbortSignal.timeout(providerDeadlines.lookupMs);
  const deadline = new Promise<LookupResult>((resolve) => signal.addEventListener('abort', () => resolve({ found: 'unknown' }), { once: true }));
  return Promise.race([connector.lookup(idempotencyKey, signal).catch((): LookupResult => ({ found: 'unknown' })), deadline]);
}
