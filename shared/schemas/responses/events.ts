/**
 * The events a merchant's webhook endpoint receives (docs/api.md "Webhooks"): for each event type, what triggers it
 * and the object its `data.object` carries, the resource as the API returns it plus its `sequence`. The one mapping
 * of event types to payloads: the OpenAPI document's `webhooks` section and its event components are built from it.
 */
import * as v from 'valibot';
import type { EventType } from '../../model/events.ts';
import { Id, Livemode, Timestamp } from './common.ts';
import { Dispute } from './disputes.ts';
import { Invoice, Subscription } from './billing.ts';
import { PaymentLink } from './payment-links.ts';
import { PaymentMethod } from './payment-methods.ts';
import { Payment, Refund, RefundObject } from './payments.ts';
import { ReconciliationException } from './reconciliation.ts';
import { Settlement } from './reports.ts';
import { TestClock } from './test-clocks.ts';

const Sequence = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(0),
  v.description(
    'increases with every change of this object: keep the greatest seen per object id and drop an event carrying a smaller one (it arrived late)',
  ),
  v.examples([1773480413589000]),
);

const withSequence = <TEntries extends v.ObjectEntries>(schema: v.ObjectSchema<TEntries, undefined>) =>
  v.object({ ...schema.entries, sequence: Sequence });

/** `payment.succeeded`, `payment.failed`, `payment.captured`, `payment.voided`: the payment. */
export const PaymentEventObject = withSequence(Payment);
/** `payment.refunded`: the refund endpoint's answer, the payment with the refund's id and amount. */
export const RefundedPaymentEventObject = withSequence(Refund);
/** `payment.capture_failed`: the payment, authorized again, with the provider's reason. */
export const CaptureFailedPaymentEventObject = v.object({
  ...PaymentEventObject.entries,
  failure_reason: v.pipe(v.nullable(v.string()), v.description("the provider's reason, when it gave one")),
});
export const RefundEventObject = withSequence(RefundObject);
export const DisputeEventObject = withSequence(Dispute);
export const SubscriptionEventObject = withSequence(Subscription);
export const InvoiceEventObject = withSequence(Invoice);
/** `invoice.payment_action_required`: the invoice and the page where the customer pays it. */
export const InvoiceActionEventObject = v.object({
  ...InvoiceEventObject.entries,
  hosted_payment_url: v.pipe(
    v.nullable(v.pipe(v.string(), v.url())),
    v.description(
      '`/hosted/pay/inv_…`, signed, valid 30 days: the customer pays the invoice there, with 3-D Secure (null: no public URL is configured)',
    ),
  ),
});
export const SettlementEventObject = withSequence(Settlement);
export const TestClockEventObject = withSequence(TestClock);
export const PaymentMethodEventObject = withSequence(PaymentMethod);
export const ReconciliationExceptionEventObject = withSequence(ReconciliationException);
/** `payment_link.paid`: the link (its `paid_count` counting this payment) and the payment it took. */
export const PaymentLinkPaidEventObject = v.object({
  ...withSequence(PaymentLink).entries,
  payment_id: v.pipe(Id('payment'), v.description('the captured payment the shopper made')),
});

export interface EventDefinition {
  /** what makes the API send it */
  trigger: string;
  /** the schema of its `data.object` */
  object: v.GenericSchema;
}

/** Every event type (the compiler requires each one), with its trigger and object. */
export const EVENTS: Record<EventType, EventDefinition> = {
  'payment.succeeded': { trigger: 'A payment was authorized (status `succeeded`): it can be captured or voided.', object: PaymentEventObject },
  'payment.requires_action': {
    trigger: 'A payment needs the shopper to authenticate (3-D Secure, status `requires_action`): send them to `next_action.redirect_to_url.url`.',
    object: PaymentEventObject,
  },
  'payment.failed': { trigger: 'A payment was declined (status `failed`, with its `decline_code`).', object: PaymentEventObject },
  'payment.captured': { trigger: 'An authorized payment was captured.', object: PaymentEventObject },
  'payment.voided': { trigger: 'An authorized payment was voided: its authorization is released.', object: PaymentEventObject },
  'payment.refunded': {
    trigger: 'A refund succeeded (at once, or when the provider confirmed a pending one). `amount` is this refund, `amount_refunded` all of them.',
    object: RefundedPaymentEventObject,
  },
  'payment.capture_failed': {
    trigger: 'A capture the provider had accepted failed after all: the payment is authorized again (`succeeded`), nothing captured.',
    object: CaptureFailedPaymentEventObject,
  },
  'refund.failed': {
    trigger: 'A refund the provider refused, or failed after accepting it: its amount is given back to the payment.',
    object: RefundEventObject,
  },
  'dispute.created': {
    trigger: 'The provider reported a dispute (chargeback) on a payment: its amount is taken out of the balance.',
    object: DisputeEventObject,
  },
  'dispute.updated': {
    trigger: 'A dispute went `under_review`: the evidence was submitted, or the provider reported it under review.',
    object: DisputeEventObject,
  },
  'dispute.closed': {
    trigger: 'A dispute ended: `won` (its amount given back), `lost`, or `accepted`.',
    object: DisputeEventObject,
  },
  'subscription.created': { trigger: 'A subscription was created.', object: SubscriptionEventObject },
  'subscription.renewed': { trigger: 'A renewal was charged: the subscription is active for its next period.', object: SubscriptionEventObject },
  'subscription.paused': { trigger: 'A subscription was paused: no renewals until it is resumed.', object: SubscriptionEventObject },
  'subscription.resumed': { trigger: 'A paused subscription was resumed.', object: SubscriptionEventObject },
  'subscription.cancelled': { trigger: 'A subscription was cancelled.', object: SubscriptionEventObject },
  'subscription.past_due': {
    trigger: 'A renewal charge (or one of its retries) was declined: the subscription is `past_due` until a retry (`retry_at`) succeeds.',
    object: SubscriptionEventObject,
  },
  'invoice.created': { trigger: 'An invoice was created (by the API, or by a subscription renewal).', object: InvoiceEventObject },
  'invoice.sent': { trigger: 'An invoice was sent by e-mail, SMS or WhatsApp.', object: InvoiceEventObject },
  'invoice.paid': { trigger: 'An invoice was paid (marked paid, or paid by a renewal charge).', object: InvoiceEventObject },
  'invoice.payment_failed': {
    trigger:
      "A renewal's charge of the invoice failed: `next_retry_at` says when it is tried again (null: not scheduled), `retry_reason` why, `payment_attempts` where it was tried.",
    object: InvoiceEventObject,
  },
  'invoice.payment_action_required': {
    trigger:
      "A renewal's charge needs the customer to authenticate (3-D Secure): they are e-mailed the invoice with `hosted_payment_url`, the page where they pay it (signed, valid 30 days). The renewal waits for them.",
    object: InvoiceActionEventObject,
  },
  'settlement.paid': {
    trigger: "A settlement reached its arrival date and was paid out: the sandbox's simulated one, or a provider's payout reconciled.",
    object: SettlementEventObject,
  },
  'payment_link.paid': {
    trigger: 'A shopper paid on a payment link: the payment is captured, with `payment_link_id`; sent once per payment.',
    object: PaymentLinkPaidEventObject,
  },
  'reconciliation.exception_created': {
    trigger: "A reconciliation run found a difference between a provider's payout and our records: its kind, expected and actual values.",
    object: ReconciliationExceptionEventObject,
  },
  'test_clock.ready': {
    trigger: 'A test clock finished advancing: every piece of work due up to its new time has run.',
    object: TestClockEventObject,
  },
  'payment_method.updated': {
    trigger:
      "A saved card changed: a provider's card updater (or, in test mode, `POST /api/test_helpers/payment_methods/:id/update`) gave a new expiry or number. The next charge at any connector uses it.",
    object: PaymentMethodEventObject,
  },
  'payment_method.deleted': {
    trigger:
      'A payment method was deleted (`DELETE /api/payment_methods/:id`, or with its customer): its card left the vault, it can no longer be charged, and its tokens at connector accounts are being removed. The object is the payment method as it was.',
    object: PaymentMethodEventObject,
  },
};

/** The body a merchant's endpoint receives for events of `type` (shared/model/events.ts `eventPayload`). */
export const eventPayloadSchema = (type: EventType) =>
  v.object({
    id: v.pipe(Id('event'), v.description('the `webhook-id` header too: the same across retries of a delivery')),
    type: v.literal(type),
    livemode: Livemode,
    created_at: Timestamp,
    data: v.object({ object: EVENTS[type].object }),
  });
