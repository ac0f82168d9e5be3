import type * as v from 'valibot';
import { connectorFor } from '../providers/index.ts';
import type { CaptureBody, ListPaymentsQuery, RefundBody } from '../schemas/payments.ts';
import {
  addRefund,
  cancelRefund,
  getPayment as getRecord,
  listPayments as listRecords,
  type PaymentRecord,
  type PaymentStatus,
  type RefundRecord,
  transitionPayment,
} from '../store/payments.ts';
import type { Merchant } from './auth.ts';
import { isoNow } from './clock.ts';
import { BadRequest, InvalidState, NotFound, ProvidersUnavailable } from './errors.ts';
import { newId } from './ids.ts';
import { paymentView } from './payments.ts';

/**
 * The payment state machine: succeeded → captured | voided; captured → refunded (partial refunds repeat while
 * money remains). Every move is a conditional write, so concurrent moves cannot both apply; the provider is asked
 * after the write claims the move, and a provider failure undoes the claim.
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
  return { object: 'list', data: result.data.map(paymentView), has_more: result.has_more, total: result.total };
}

async function move(payment: PaymentRecord, from: readonly PaymentStatus[], changes: Partial<PaymentRecord>) {
  if (!from.includes(payment.status)) throw new InvalidState();
  const moved = await transitionPayment(payment, from, { ...changes, updated_at: isoNow() });
  if (!moved) throw new InvalidState();
  return moved;
}

/** Captures all or part of the authorized amount; a partial capture releases the rest. */
export async function capturePayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof CaptureBody>) {
  const payment = await load(merchant, paymentId);
  const amount = body.amount ?? payment.amount;
  if (amount > payment.amount) throw new BadRequest('amount_too_large', 'amount');
  const captured = await move(payment, ['succeeded'], { status: 'captured', amount_captured: amount });
  const result = await connectorFor(payment.provider!, payment.livemode).capture(payment.provider_reference!, amount, payment.currency);
  if (!result.ok) {
    await transitionPayment(captured, ['captured'], { status: 'succeeded', amount_captured: 0 });
    throw new ProvidersUnavailable();
  }
  return paymentView(captured);
}

export async function voidPayment(merchant: Merchant, paymentId: string) {
  const payment = await load(merchant, paymentId);
  const voided = await move(payment, ['succeeded'], { status: 'voided' });
  const result = await connectorFor(payment.provider!, payment.livemode).void(payment.provider_reference!);
  if (!result.ok) {
    await transitionPayment(voided, ['voided'], { status: 'succeeded' });
    throw new ProvidersUnavailable();
  }
  return paymentView(voided);
}

/** Refunds `amount` (default: all that remains) of a captured payment; the sum never exceeds the captured amount. */
export async function refundPayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof RefundBody>) {
  const payment = await load(merchant, paymentId);
  if (payment.status !== 'captured' && payment.status !== 'refunded') throw new InvalidState();
  const remaining = payment.amount_captured - payment.amount_refunded;
  const amount = body.amount ?? remaining;
  if (remaining <= 0) throw new InvalidState();
  if (amount > remaining) throw new BadRequest('amount_too_large', 'amount');

  const refund: RefundRecord = {
    id: newId('refund'),
    payment_id: payment.id,
    amount,
    reason: body.reason ?? null,
    provider_reference: null,
    created_at: isoNow(),
  };
  const refunded = await addRefund(payment, refund, refund.created_at);
  if (!refunded) throw new InvalidState();
  const result = await connectorFor(payment.provider!, payment.livemode).refund(payment.provider_reference!, amount, payment.currency);
  if (!result.ok) {
    await cancelRefund(payment, refund);
    throw new ProvidersUnavailable();
  }
  return { ...paymentView(refunded), refund_id: refund.id, amount, amount_refunded: refunded.amount_refunded };
}
