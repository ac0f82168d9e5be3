import type { FeeSchedule, ProviderName } from './types.ts';

/**
 * Each provider's published standard card price: a connector account's fee schedule unless the merchant sets its own
 * (`fees` on the connector). The fixed part makes Adyen cheapest for small payments and Braintree for large ones, so
 * `lowest_cost` depends on the amount.
 */
export const FEES: Record<ProviderName, FeeSchedule> = {
  stripe: { percent: 2.9, fixed: 30 },
  adyen: { percent: 3.0, fixed: 11 },
  braintree: { percent: 2.4, fixed: 49 },
};

/**
 * The fee of `amount` under `schedule`, in minor units, rounded half up: what routing's cost and a payout line's
 * expected fee both use.
 */
export const feeOf = (schedule: FeeSchedule, amount: number): number => Math.round((amount * schedule.percent) / 100 + schedule.fixed);

/** The fee at the provider's standard price. */
export const feeFor = (provider: ProviderName, amount: number): number => feeOf(FEES[provider], amount);
