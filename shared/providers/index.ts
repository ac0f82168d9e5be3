import { SandboxConnector } from './sandbox.ts';
import { type Connector, PROVIDERS, type ProviderName } from './types.ts';

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
