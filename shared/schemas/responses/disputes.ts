/** Disputes and a payment's timeline as the API returns them (shared/domain/disputes.ts, timeline.ts). */
import * as v from 'valibot';
import { DISPUTE_REASONS, PROVIDERS } from '../../providers/types.ts';
import { Amount, Currency, Id, list, Livemode, Metadata, Timestamp } from './common.ts';

export const Dispute = v.object({
  id: Id('dispute'),
  object: v.literal('dispute'),
  payment_id: Id('payment'),
  amount: v.pipe(Amount, v.description('the disputed amount, taken out of the balance while the dispute is open or lost')),
  currency: Currency,
  reason: v.pipe(v.picklist(DISPUTE_REASONS), v.description("the cardholder's reason (Stripe's vocabulary)")),
  status: v.pipe(
    v.picklist(['needs_response', 'under_review', 'won', 'lost', 'accepted']),
    v.description('won, lost and accepted are final; a won dispute gives its amount back'),
  ),
  evidence_due_by: v.pipe(v.nullable(Timestamp), v.description('when the provider needs the evidence by')),
  created_at: Timestamp,
  livemode: Livemode,
  metadata: v.pipe(Metadata, v.description('always {} for now: a dispute is opened by the provider, and no request sets it')),
});

export const DisputeList = list(Dispute);

export const TestDisputeRequest = v.object({
  payment_id: Id('payment'),
  provider: v.nullable(v.picklist(PROVIDERS)),
  requested: v.literal(true),
  dispute: v.pipe(
    v.nullable(Dispute),
    v.description("the dispute at once (sandbox); null when the provider's notification brings it (a connected account)"),
  ),
});

export const TimelineEntry = v.object({
  at: Timestamp,
  object: v.picklist(['payment', 'attempt', 'refund', 'dispute']),
  id: v.string(),
  change: v.pipe(v.string(), v.examples(['payment.captured']), v.description('what happened, e.g. payment.captured, refund.failed, dispute.won')),
  source: v.pipe(
    v.picklist(['api', 'provider_webhook', 'reconciler', 'schedule']),
    v.description("who made the change: the API, the provider's notification, the reconciler, or a schedule"),
  ),
  provider_reference: v.pipe(v.nullable(v.string()), v.description("the provider's reference of the change (its object id or event id)")),
  reason: v.optional(v.pipe(v.string(), v.description('an attempt of a renewal charge: why it was made, there'))),
});

export const PaymentTimeline = v.object({
  object: v.literal('timeline'),
  payment_id: Id('payment'),
  data: v.pipe(v.array(TimelineEntry), v.description('oldest first')),
});
