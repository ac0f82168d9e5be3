import { providerDeadlines } from '../deadlines.ts';
import { DISPUTE_EVIDENCE_FIELDS, type DisputeDesk, type ProviderFollowUp } from '../types.ts';
import { clientFor, send } from './client.ts';
import { operationFailure } from './connector.ts';
import type { StripeCredentials } from './index.ts';
import { parseStripeWebhook } from './webhooks.ts';

const timeout = providerDeadlines.operationMs;

/** Stripe's events (verified with the account's webhook secret) and its disputes, through the SDK. */
export const stripeFollowUp: ProviderFollowUp<StripeCredentials> = {
  parseWebhook: (credentials, request) => parseStripeWebhook(credentials.webhook_secret, request),

  disputeDesk(credentials): DisputeDesk {
    const stripe = clientFor(credentials.secret_key);
    return {
      /** Our fields are Stripe's evidence fields; `submit: true` sends them to the card network at once. */
      async submitEvidence(disputeReference, evidence, idempotencyKey) {
        const fields = Object.fromEntries(
          DISPUTE_EVIDENCE_FIELDS.flatMap((field) => (evidence[field] === undefined ? [] : [[field, evidence[field]]])),
        );
        const sent = await send(() => stripe.disputes.update(disputeReference, { evidence: fields, submit: true }, { idempotencyKey, timeout }));
        return sent.ok ? { ok: true, reference: sent.value.id } : operationFailure(sent);
      },
      /** Stripe's close: the merchant concedes (Stripe then reports the dispute `lost`). */
      async accept(disputeReference, idempotencyKey) {
        const sent = await send(() => stripe.disputes.close(disputeReference, {}, { idempotencyKey, timeout }));
        return sent.ok ? { ok: true, reference: sent.value.id } : operationFailure(sent);
      },
    };
  },
};
