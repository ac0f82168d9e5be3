import type { DisputeDesk, ProviderFollowUp } from '../types.ts';
import { clientFor } from './client.ts';
import type { StripeCredentials } from './credentials.ts';
import { acceptDispute, submitEvidence } from './disputes.ts';
import { parseWebhook } from './webhooks.ts';

/** Stripe's events (verified with the account's webhook secret) and its disputes, through the SDK. */
export const stripeFollowUp: ProviderFollowUp<StripeCredentials> = {
  parseWebhook,

  disputeDesk(credentials): DisputeDesk {
    const stripe = clientFor(credentials.secret_key);
    return {
      submitEvidence: (disputeReference, evidence, idempotencyKey) => submitEvidence(stripe, disputeReference, evidence, idempotencyKey),
      accept: (disputeReference, idempotencyKey) => acceptDispute(stripe, disputeReference, idempotencyKey),
    };
  },
};
