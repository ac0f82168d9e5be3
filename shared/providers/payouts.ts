import type { ProviderName, ProviderPayouts } from './types.ts';

/** Each provider's payouts module (`./<name>/payouts.ts`), loaded on first use by the reconciliation functions only. */
const modules: Record<ProviderName, () => Promise<ProviderPayouts>> = {
  stripe: async () => (await import('./stripe/payouts.ts')).stripePayouts as unknown as ProviderPayouts,
  adyen: async () => (await import('./adyen/payouts.ts')).adyenPayouts as unknown as ProviderPayouts,
  braintree: async () => (await import('./braintree/payouts.ts')).braintreePayouts as unknown as ProviderPayouts,
};

export const payoutsModule = (provider: ProviderName): Promise<ProviderPayouts> => modules[provider]();
