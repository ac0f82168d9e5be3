import type * as v from 'valibot';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectorFor } from '../providers/index.ts';
import type { CaptureBody, ListPaymentsQuery, RefundBody } from '../schemas/payments.ts';
import { publishEvents } from '../events/queue.ts';
import type { TransactItem } from '../store/client.ts';
import {
  addRefund,
  cancelRefund,
  completePayment,
  confirmRefund,
  getPayment as getRecord,
  listPayments as listRecords,
  lockPayment,
  type PaymentOperation,
  type PaymentRecord,
  type PaymentStatus,
  type RefundRecord,
  unlockPayment,
} from '../store/payments.ts';
import type { Merchant } from './auth.ts';
import { clock, isoNow } from './clock.ts';
import { BadRequest, InvalidState, NotFound, ProvidersUnavailable } from './errors.ts';
import { type DomainEvent, type EventType, newEvent } from './events.ts';
import { newId } from './ids.ts';
import { captureCounters, dayOf, refundCounters, unplannedRefundCounters } from './ledger.ts';
import { paymentView } from './payments.ts';

/**
 * The payment state machine: succeeded → captured | voided; captured → refunded (partial refunds repeat while
 * money remains). Every move is a conditional write, so concurrent moves cannot both apply, and every applied move
 * writes its event in the same transaction.
 */
async function load(merchant: Merchant, paymentId: string): Promise<PaymentRecord> {
  const payment = await getRecord(merchant.id, paymentId);
  if (!payment) throw new NotFound();
  return payment;
}

export async function getPayment(merchant: Merchant, paymentId: string) {
  return paymentView(await load(merchant, paymentId));
}

type ListInput = v.InferOutput<typeof ListPaymentsQuery>;

export async function listPayments(merchant: Merchant, query: ListInput) {
  const { limit, starting_after, ending_before, status, currency, provider, customer_email } = query;
  const result = await listRecords(
    merchant.id,
    { status, currency, provider, customer_email, created_gte: query['created[gte]'], created_lte: query['created[lte]'] },
    { limit, starting_after, ending_before },
  );
  return { object: 'list' as const, data: result.data.map(paymentView), has_more: result.has_more, total: result.total };
}

/** A claim on the payment stays valid while the provider is asked (the function's timeout is 10 s). */
const LOCK_MS = 30_000;

/**
 * Claims the move, asks the provider, then applies the move with its event in one transaction; if the provider
 * refuses, the claim is released and nothing changes. Of two racing moves only one gets the claim.
 */
async function move(
  payment: PaymentRecord,
  operation: PaymentOperation,
  from: readonly PaymentStatus[],
  changes: Partial<PaymentRecord>,
  eventType: EventType,
  callProvider: () => Promise<{ ok: boolean }>,
  counters: TransactItem[] = [],
) {
  if (!from.includes(payment.status) || !(await lockPayment(payment, operation, from, clock.now(), LOCK_MS))) throw new InvalidState();
  const result = await callProvider();
  if (!result.ok) {
    await unlockPayment(payment, operation);
    throw new ProvidersUnavailable();
  }
  let event: DomainEvent | undefined;
  const moved = await completePayment(payment, operation, { ...changes, updated_at: isoNow() }, (updated) => {
    event = newEvent(payment.merchant_id, eventType, paymentView(updated));
    return event;
  }, counters);
  await publishEvents([event!]);
  return paymentView(moved);
}

/** Captures all or part of the authorized amount; a partial capture releases the rest. */
export async function capturePayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof CaptureBody>) {
  const payment = await load(merchant, paymentId);
  const amount = body.amount ?? payment.amount;
  if (amount > payment.amount) throw new BadRequest('amount_too_large', 'amount');
  return move(
    payment,
    'capture',
    ['succeeded'],
    { status: 'captured', amount_captured: amount },
    'payment.captured',
    () => connectorFor(payment.provider!, payment.livemode).capture(payment.provider_reference!, amount, payment.currency),
    captureCounters(payment.merchant_id, payment.currency, amount, dayOf(isoNow())),
  );
}

export async function voidPayment(merchant: Merchant, paymentId: string) {
  const payment = await load(merchant, paymentId);
  return move(payment, 'void', ['succeeded'], { status: 'voided' }, 'payment.voided', () =>
    connectorFor(payment.provider!, payment.livemode).void(payment.provider_reference!),
  );
}

/**
 * Refunds `amount` (default: all that remains) of a captured payment. The refund is reserved first by a conditional
 * write that keeps the sum within the captured amount however many refunds race; the provider is then asked, and
 * the refund is confirmed with its event, or taken back.
 */
export async function refundPayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof RefundBody>) {
  const { payment, refund, refunded } = await reserveRefund(merchant, paymentId, body);
  const amount = refund.amount;
  const result = await connectorFor(payment.provider!, payment.livemode).refund(payment.provider_reference!, amount, payment.currency);
  if (!result.ok) {
    await cancelRefund(payment, refund);
    throw new ProvidersUnavailable();
  }
  const view = { ...paymentView(refunded), refund_id: refund.id, amount, amount_refunded: refunded.amount_refunded };
  const event = newEvent(payment.merchant_id, 'payment.refunded', view);
  await confirmWithCounters(refund, result.reference, event, payment.merchant_id, payment.currency);
  await publishEvents([event]);
  return view;
}

const RESERVE_ATTEMPTS = 5;

/**
 * Reserves the refund's amount on the payment. A reservation that loses to a concurrent refund is judged again on
 * the payment as it is now, as if this request had come after the other one: a default amount becomes what is left.
 */
async function reserveRefund(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof RefundBody>) {
  const id = newId('refund');
  const createdAt = isoNow();
  for (let attempt = 1; ; attempt++) {
    const payment = await load(merchant, paymentId);
    if (payment.status !== 'captured' && payment.status !== 'refunded') throw new InvalidState();
    const remaining = payment.amount_captured - payment.amount_refunded;
    if (remaining <= 0) throw new InvalidState();
    const amount = body.amount ?? remaining;
    if (amount > remaining) throw new BadRequest('amount_too_large', 'amount');
    const refund: RefundRecord = { id, payment_id: payment.id, status: 'pending', amount, reason: body.reason ?? null, provider_reference: null, created_at: createdAt };
    const refunded = await addRefund(payment, refund, createdAt);
    if (refunded) return { payment, refund, refunded };
    if (attempt === RESERVE_ATTEMPTS) throw new InvalidState();
  }
}

const PLANNED_ATTEMPTS = 4;
const UNPLANNED_ATTEMPTS = 8;

/**
 * The provider has refunded: the refund must now be recorded, whatever else is happening. Planned counters (taking
 * from available, then pending) are tried a few times, then counters that need no plan; each retry after a short,
 * jittered pause. Only a failure that is not a conflict gives up.
 */
async function confirmWithCounters(refund: RefundRecord, reference: string, event: DomainEvent, merchantId: string, currency: string) {
  const day = dayOf(refund.created_at);
  for (let attempt = 0; attempt < PLANNED_ATTEMPTS + UNPLANNED_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));
    const counters =
      attempt < PLANNED_ATTEMPTS
        ? await refundCounters(merchantId, currency, refund.amount, day)
        : unplannedRefundCounters(merchantId, currency, refund.amount, day);
    if (await confirmRefund(refund, reference, event, counters)) return;
  }
  throw new Error('The refund could not be recorded: its writes kept conflicting');
}
