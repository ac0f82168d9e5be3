/**
 * What Stripe says of our payments, as ProviderChanges: a PaymentIntent, refund, dispute or event in our words (what
 * an inbound webhook reports), and `changesOf`, the reconciler's read of one payment.
 */
import type Stripe from 'stripe';
import { providerDeadlines } from '../deadlines.ts';
import { DISPUTE_REASONS, type DisputeReason, type DisputeStatus, type ProviderChange } from '../types.ts';
import { fromStripeAmount } from './amounts.ts';
import { send } from './client.ts';

type Change<Object extends ProviderChange['object']> = Extract<ProviderChange, { object: Object }>;

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id);
/** Stripe's unix seconds as ISO 8601. */
export const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/** What a PaymentIntent says of its capture or cancellation (nothing while it waits for either). */
export function intentChange(intent: Stripe.PaymentIntent): Change<'capture' | 'cancellation'> | null {
  if (intent.status === 'succeeded' && intent.amount_received > 0) return { object: 'capture', status: 'succeeded', paymentReference: intent.id };
  if (intent.status === 'canceled') return { object: 'cancellation', status: 'succeeded', paymentReference: intent.id };
  return null;
}

const REFUND_STATUSES: Record<string, Change<'refund'>['status']> = {
  pending: 'pending',
  requires_action: 'pending',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'failed',
};

/** A refund of a PaymentIntent, naming our refund when we tagged it (`metadata.refund_id`). */
export function refundChange(refund: Stripe.Refund): Change<'refund'> | null {
  const paymentReference = idOf(refund.payment_intent);
  const status = REFUND_STATUSES[refund.status ?? ''];
  if (!paymentReference || !status) return null;
  const refundId = refund.metadata?.refund_id;
  return {
    object: 'refund',
    status,
    paymentReference,
    refundReference: refund.id,
    ...(refundId ? { refundId } : {}),
    amount: fromStripeAmount(refund.amount, refund.currency),
    currency: refund.currency.toUpperCase(),
    ...(status === 'failed' ? { reason: refund.failure_reason ?? refund.status ?? 'failed' } : {}),
  };
}

/**
 * Stripe's dispute statuses in ours. An inquiry (`warning_…`) that closes without becoming a chargeback is won; a
 * dispute the merchant closed is `lost` at Stripe (our `accepted` is recorded when we accept). `prevented` and any
 * status Stripe adds later are not followed.
 */
const DISPUTE_STATUSES: Record<string, DisputeStatus> = {
  warning_needs_response: 'needs_response',
  needs_response: 'needs_response',
  appeal_needs_response: 'needs_response',
  warning_under_review: 'under_review',
  under_review: 'under_review',
  appeal_under_review: 'under_review',
  won: 'won',
  warning_closed: 'won',
  lost: 'lost',
};

const disputeReason = (reason: string): DisputeReason =>
  (DISPUTE_REASONS as readonly string[]).includes(reason) ? (reason as DisputeReason) : 'general';

/** A dispute of a PaymentIntent's charge. */
export function disputeChange(dispute: Stripe.Dispute): Change<'dispute'> | null {
  const paymentReference = idOf(dispute.payment_intent);
  const status = DISPUTE_STATUSES[dispute.status];
  if (!paymentReference || !status) return null;
  const dueBy = dispute.evidence_details?.due_by;
  return {
    object: 'dispute',
    status,
    paymentReference,
    disputeReference: dispute.id,
    amount: fromStripeAmount(dispute.amount, dispute.currency),
    currency: dispute.currency.toUpperCase(),
    reason: disputeReason(dispute.reason),
    evidenceDueBy: dueBy ? isoOf(dueBy) : null,
  };
}

const REFUND_EVENTS = new Set(['refund.created', 'refund.updated', 'refund.failed', 'charge.refund.updated']);
const DISPUTE_EVENTS = new Set([
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
]);

/** What one Stripe event reports about a payment, or null for an event we do not follow. */
export function eventChange(event: Stripe.Event): ProviderChange | null {
  const object = event.data.object as unknown;
  if (event.type === 'charge.captured') {
    const paymentReference = idOf((object as Stripe.Charge).payment_intent);
    return paymentReference ? { object: 'capture', status: 'succeeded', paymentReference } : null;
  }
  if (event.type === 'payment_intent.succeeded')
    return { object: 'capture', status: 'succeeded', paymentReference: (object as Stripe.PaymentIntent).id };
  if (event.type === 'payment_intent.canceled')
    return { object: 'cancellation', status: 'succeeded', paymentReference: (object as Stripe.PaymentIntent).id };
  if (REFUND_EVENTS.has(event.type)) return refundChange(object as Stripe.Refund);
  if (DISPUTE_EVENTS.has(event.type)) return disputeChange(object as Stripe.Dispute);
  return null;
}

const timeout = providerDeadlines.operationMs;
/** More refunds or disputes than this on one payment are not read (Stripe lists them newest first). */
const MAX_LISTED = 1000;

/**
 * What Stripe says now about the PaymentIntent `reference`: its capture or cancellation, then its refunds and
 * disputes, oldest first. Undefined when any of the three reads fails (a partial answer could hide a change).
 */
export async function changesOf(stripe: Stripe, reference: string, signal?: AbortSignal): Promise<ProviderChange[] | undefined> {
  const [intent, refunds, disputes] = await Promise.all([
    send(() => stripe.paymentIntents.retrieve(reference, {}, { timeout }), signal),
    send(() => stripe.refunds.list({ payment_intent: reference, limit: 100 }, { timeout }).autoPagingToArray({ limit: MAX_LISTED }), signal),
    send(() => stripe.disputes.list({ payment_intent: reference, limit: 100 }, { timeout }).autoPagingToArray({ limit: MAX_LISTED }), signal),
  ]);
  if (!intent.ok || !refunds.ok || !disputes.ok) return undefined;
  return [intentChange(intent.value), ...refunds.value.toReversed().map(refundChange), ...disputes.value.toReversed().map(disputeChange)].filter(
    (change) => change !== null,
  );
}
