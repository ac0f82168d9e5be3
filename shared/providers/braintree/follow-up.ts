import type { DisputeDesk, ProviderFollowUp } from '../types.ts';
import { endpointFor } from './client.ts';
import type { BraintreeCredentials } from './credentials.ts';
import { acceptDispute, submitEvidence } from './disputes.ts';
import { parseWebhook } from './webhooks.ts';

/** Braintree's notifications (the SDK verifies `bt_signature`) and its disputes through GraphQL. */
export const braintreeFollowUp: ProviderFollowUp<BraintreeCredentials> = {
  parseWebhook,

  disputeDesk(credentials, account): DisputeDesk {
    const endpoint = endpointFor(credentials, account.mode);
    return {
      submitEvidence: (disputeReference, evidence, idempotencyKey) => submitEvidence(endpoint, disputeReference, evidence, idempotencyKey),
      accept: (disputeReference, idempotencyKey) => acceptDispute(endpoint, disputeReference, idempotencyKey),
    };
  },
};
