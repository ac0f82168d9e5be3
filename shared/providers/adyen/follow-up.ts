import type { DisputeDesk, ProviderFollowUp } from '../types.ts';
import type { AdyenCredentials } from './credentials.ts';
import { disputeClientFor } from './dispute-client.ts';
import { acceptDispute, submitEvidence } from './disputes.ts';
import { parseWebhook } from './webhooks.ts';

/** Adyen's notifications (HMAC on every item) and its Disputes API (defense document, defend, accept). */
export const adyenFollowUp: ProviderFollowUp<AdyenCredentials> = {
  parseWebhook,

  disputeDesk(credentials, account): DisputeDesk {
    const client = disputeClientFor(credentials, account.mode);
    return {
      submitEvidence: (disputeReference, evidence, idempotencyKey) =>
        submitEvidence(client, credentials.merchant_account, disputeReference, evidence, idempotencyKey),
      accept: (disputeReference, idempotencyKey) => acceptDispute(client, credentials.merchant_account, disputeReference, idempotencyKey),
    };
  },
};
