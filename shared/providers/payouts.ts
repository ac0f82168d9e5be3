import type { ProviderName, ProviderPayouts } from './types.ts';

/**
 * Each provider's payouts module (`./<name>/payouts.ts`), loaded on first use by the reconciliation functions only.
 * A provider without one cannot be reconciled yet (undefined).
 */
const modules: Partial<Record<ProviderName, () => Promise<ProviderPayouts>>> = {
  stripe: async () => (await import('./stripe/payouts.ts')).stripePayouts as unknown as ProviderPayouts,
  adyen: async () => (await import('./adyen/payouts.ts')).adyenPayouts as unknown as ProviderPayouts,
};

export const payoutsModule = async (provider: ProviderName): Promise<ProviderPayouts | undefined> => modules[provider]?.();
