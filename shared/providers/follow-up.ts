import type { DisputeDesk, ProviderFollowUp, ProviderName } from './types.ts';

/**
 * Each provider's follow-up module (notifications and disputes, `./<name>/follow-up.ts`), loaded on first use and
 * reached only from the functions that receive notifications or act on disputes: a payment function's bundle never
 * holds what they need (Braintree's SDK, Adyen's HMAC validator, a PDF renderer).
 */
const modules: Record<ProviderName, () => Promise<ProviderFollowUp>> = {
  stripe: async () => (await import('./stripe/follow-up.ts')).stripeFollowUp as unknown as ProviderFollowUp,
  adyen: async () => (await import('./adyen/follow-up.ts')).adyenFollowUp as unknown as ProviderFollowUp,
  braintree: async () => (await import('./braintree/follow-up.ts')).braintreeFollowUp as unknown as ProviderFollowUp,
};

export const followUpModule = (provider: ProviderName): Promise<ProviderFollowUp> => modules[provider]();

/** The sandbox's disputes desk: it takes every answer at once (its disputes are opened by the test helper). */
export const sandboxDisputeDesk: DisputeDesk = {
  submitEvidence: async (disputeReference) => ({ ok: true, reference: disputeReference }),
  accept: async (disputeReference) => ({ ok: true, reference: disputeReference }),
};
