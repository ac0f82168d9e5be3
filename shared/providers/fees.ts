import type { FeeSchedule, ProviderName } from './types.ts';

/**
 * Each provider's card price (sandbox list prices). The fixed part makes Adyen cheapest for small payments and
 * Braintree for large ones, so `lowest_cost` depends on the amount.
 */
export const FEES: Record<ProviderName, FeeSchedule> = {
  stripe: { percent: 2.9, fixed: 30 },
  adyen: { percent: 3.0, fixed: 11 },
  braintree: { percent: 2.4, fixed: 49 },
};

/** The fee in minor units, rounded half up. */
export const feeFor = (provider: ProviderName, amount: number): number => Math.round((amount * FEES[provider].percent) / 100 + FEES[provider].fixed);
