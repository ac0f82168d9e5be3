import type { Owner } from './targets.ts';
import { clock } from './clock.ts';
import { newId } from './ids.ts';

/** Every event a merchant can subscribe to (docs/api.md "Webhooks"). */
export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.requires_action',
  'payment.failed',
  'payment.captured',
  'payment.voided',
  'payment.refunded',
  'subscription.created',
  'subscription.renewed',
  'subscription.paused',
  'subscription.resumed',
  'subscription.cancelled',
  'subscription.past_due',
  'invoice.created',
  'invoice.sent',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.payment_action_required',
  'settlement.paid',
  'refund.failed',
  'payment.capture_failed',
  'dispute.created',
  'dispute.updated',
  'dispute.closed',
  'test_clock.ready',
  'payment_method.updated',
  'payment_method.deleted',
  'reconciliation.exception_created',
  'payment_link.paid',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as it is stored (with the change it reports) and delivered: the Standard Webhooks payload plus routing fields. */
export interface DomainEvent {
  id: string;
  type: EventType;
  merchant_id: string;
  /** the mode of the change it reports: it goes to that mode's endpoints only */
  livemode: boolean;
  created_at: string;
  data: { object: Record<string, unknown> };
}

let lastSequence = 0;

/**
 * An object's `sequence` in an event: the change's time in microseconds, strictly increasing within a process. The
 * changes of one object are ordered by the conditional writes that make them (each is decided on the item the
 * previous one wrote), so a later change of an object carries a greater sequence, and a receiver that keeps the
 * greatest seen drops a stale event arriving late.
 */
const nextSequence = () => (lastSequence = Math.max(clock.now() * 1000, lastSequence + 1));

export const newEvent = (owner: Owner, type: EventType, object: Record<string, unknown>): DomainEvent => ({
  id: newId('event'),
  type,
  merchant_id: owner.merchant_id,
  livemode: owner.livemode,
  created_at: new Date(clock.now()).toISOString(),
  data: { object: { ...object, sequence: nextSequence() } },
});

/** The body a merchant's endpoint receives. */
export const eventPayload = (event: DomainEvent) =>
  JSON.stringify({ id: event.id, type: event.type, livemode: event.livemode, created_at: event.created_at, data: event.data });
