import type * as v from 'valibot';
import type { OperationResult } from '../providers/index.ts';
import { connectorForOperation } from './connectors.ts';
import type { RefundBody } from '../schemas/payments.ts';
import { type Change, commit } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as payments from '../store/payments.ts';
import type { PaymentRead, PaymentRecord, StoredRefund } from '../store/payments.ts';
import type { Merchant } from './auth.ts';
import { isoNow } from '../model/clock.ts';
import { AppError, BadRequest, InvalidState, OperationInProgress, ProviderRefused } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { asRetried, awaiting, type DeclaredOperation, giveUp, runOperation, takeOverOperation } from './operations.ts';
import { load, operationOn } from './payment-lifecycle.ts';
import { PAYMENT, transition } from '../model/state-machines.ts';
import { confirmRefund, countRefund, failRefund, refundView } from './refund-outcomes.ts';
import { type ChangeSource, historyEntry } from './timeline-entries.ts';

/**
 * Refunds `amount` (default: all that remains) of a captured payment. The refund is reserved first by a conditional
 * write that keeps the sum within the captured amount however many refunds race, with its operation on the refund
 * item; the provider is then asked under the refund's id, and the refund is confirmed with its event, or taken back.
 */
export async function refundPayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof RefundBody>, origin: Origin = freshOrigin()) {
  const refundId = idFor('refund', origin);
  const earlier = origin.seed === null ? undefined : await payments.getRefund(paymentId, refundId);
  if (!earlier) return reserveAndRefund(merchant, paymentId, refundId, body);
  return runOperation(refundOperation, { payment: await load(merchant, paymentId), refund: earlier, source: 'api' });
}

const RESERVE_ATTEMPTS = 5;

/**
 * Reserves the refund's amount on the payment (the operation's begin), then refunds. A reservation that loses to a
 * concurrent refund is judged again on the payment as it is now, as if this request had come after the other one: a
 * default amount becomes what is left. The first read may be stale (half the units): a reservation judged on it holds
 * only while the payment still has the status and the captured and refunded amounts it read, and a request it would
 * turn away (missing, not refundable, too large) is judged again on a consistent read.
 */
async function reserveAndRefund(
  merchant: Merchant,
  paymentId: string,
  refundId: string,
  body: v.InferOutput<typeof RefundBody>,
  attempt = 1,
): Promise<RefundView> {
  const judge = async (read: PaymentRead) => {
    const payment = await load(merchant, paymentId, read);
    const step = transition('payment', PAYMENT, 'refund', payment.status);
    const remaining = payment.amount_captured - payment.amount_refunded;
    if (remaining <= 0) throw new InvalidState(undefined, 'the payment has been refunded in full');
    const amount = body.amount ?? remaining;
    if (amount > remaining) throw new BadRequest('amount_too_large', 'amount');
    return { payment, step, amount, read };
  };
  const { payment, step, amount, read } = await judge(attempt === 1 ? 'eventual' : 'consistent').catch((error: unknown) => {
    if (attempt === 1 && error instanceof AppError) return judge('consistent');
    throw error;
  });
  const op = operationOn(payment, refundId, 'refund', amount);
  const refund: StoredRefund = {
    id: refundId,
    payment_id: payment.id,
    merchant_id: payment.merchant_id,
    currency: payment.currency,
    livemode: payment.livemode,
    status: 'pending',
    amount,
    reason: body.reason ?? null,
    provider_reference: null,
    created_at: isoNow(),
    // An empty map is not stored, so a refund without metadata writes the item it always did.
    ...(body.metadata && Object.keys(body.metadata).length > 0 ? { metadata: body.metadata } : {}),
    op,
  };
  const reservation: Change = {
    writes: [
      // From the status read (not any status the transition allows), so the status counts change exactly once.
      {
        update: payments.paymentTarget(payment),
        transition: { ...step, from: [payment.status] },
        add: { amount_refunded: amount },
        atMost: { amount_refunded: payment.amount_captured - amount },
        ...(read === 'eventual' ? { expect: { amount_captured: payment.amount_captured, amount_refunded: payment.amount_refunded } } : {}),
        set: { updated_at: refund.created_at },
      },
      { create: payments.refundTarget(refund), item: { ...refund, op: undefined }, operation: op },
    ],
    counters: payments.paymentCountChange(payment, payment.status, 'refunded'),
  };
  const retry = async () => {
    if (attempt === RESERVE_ATTEMPTS) throw new OperationInProgress(1, 'this payment (concurrent refunds)');
    return reserveAndRefund(merchant, paymentId, refundId, body, attempt + 1);
  };
  return runOperation(refundOperation, { payment, refund, reservation, retry, source: 'api' });
}

type RefundView = ReturnType<typeof refundView>;

/**
 * A refund's run: fresh (its `reservation` begins it, `retry` judges again when a concurrent refund moved first), or
 * of a refund stored by an earlier run (its operation taken over, or its answer replayed).
 */
interface RefundRun {
  payment: PaymentRecord;
  refund: StoredRefund;
  reservation?: Change;
  retry?: () => Promise<RefundView>;
  source: ChangeSource;
}

/** A refund: reserved on the payment, the provider asked under the refund's id, the answer recorded. */
export const refundOperation: DeclaredOperation<RefundRun, OperationResult, RefundView> = {
  what: 'this payment',
  target: ({ refund }) => payments.refundTarget(refund),
  replay: ({ payment, refund, reservation }) => (!reservation && (!refund.op || refund.op.awaiting) ? refundView(payment, refund) : undefined),
  held: ({ refund, reservation }) => (reservation ? undefined : refund.op),
  // the refund item is the request's own (its id comes from the request)
  own: () => true,
  start: ({ refund, reservation }) => ({ op: refund.op!, begin: reservation! }),
  onRefused: ({ retry }) => (retry ? retry() : Promise.reject(new OperationInProgress(1))),
  call: async (op, { payment, refund }, retried) =>
    asRetried(await (await connectorForOperation(payment, op)).refund(op.reference!, refund.amount, payment.currency, op.id), retried),
  record: (result, op, { payment, refund, source }) => recordRefund(payment, refund, op, result, source),
};

/**
 * The refund's answer: confirmed (counters and event), accepted for later (the refund stays `pending`, its operation
 * awaiting the provider's notification or the reconciler), refused (the refund `failed`, its amount given back), or
 * unreachable (taken back, as if never asked).
 */
async function recordRefund(payment: PaymentRecord, refund: StoredRefund, op: Operation, result: OperationResult, source: ChangeSource) {
  if (!result.ok && result.reason === 'refused') {
    await failRefund(payment, refund, result.message, { source, reference: null });
    throw new ProviderRefused(payment.provider ?? 'the provider', `refund ${refund.id}`, result.message, 'amount');
  }
  if (!result.ok) {
    if (result.reason !== 'unknown') await takeBack(payment, refund);
    return giveUp(payments.refundTarget(refund), payment, op, result);
  }
  if (!result.pending) return (await confirmRefund(payment, refund, result.reference, { source, reference: result.reference })).view;
  const accepted = await commit({
    writes: [
      {
        update: payments.refundTarget(refund),
        inStates: ['pending'],
        set: { provider_reference: result.reference },
        append: { history: [historyEntry('refund.accepted', source, result.reference)] },
        operation: { replace: op.id, with: awaiting(op) },
      },
    ],
  });
  if (accepted === 'refused' && (await payments.getRefund(refund.payment_id, refund.id))?.op?.id === op.id) throw new OperationInProgress(1);
  if (accepted === 'committed') await countRefund(payment, 'pending');
  return refundView((await payments.getStoredPayment(payment, payment.id)) as PaymentRecord, refund);
}

/**
 * The provider refused the refund: its amount goes back to the payment in one transaction with the refund's removal;
 * when it was the only money refunded, the payment is captured again in the same transaction.
 */
async function takeBack(payment: PaymentRecord, refund: StoredRefund): Promise<void> {
  const remove = { remove: payments.refundTarget(refund), operation: refund.op!.id };
  for (let attempt = 1; attempt <= RESERVE_ATTEMPTS; attempt++) {
    const now = (await payments.getStoredPayment(payment, payment.id)) as PaymentRecord;
    const last = now.status === 'refunded' && now.amount_refunded === refund.amount;
    const given = await commit(
      last
        ? {
            writes: [
              {
                update: payments.paymentTarget(now),
                transition: PAYMENT.restore,
                add: { amount_refunded: -refund.amount },
                expect: { amount_refunded: refund.amount },
              },
              remove,
            ],
            counters: payments.paymentCountChange(now, 'refunded', 'captured'),
          }
        : {
            writes: [
              { update: payments.paymentTarget(now), add: { amount_refunded: -refund.amount }, expect: { amount_refunded: now.amount_refunded } },
              remove,
            ],
          },
    );
    if (given === 'committed') return;
  }
  throw new OperationInProgress(1, 'this payment (concurrent refunds)');
}

export async function reconcileRefundOperation(refund: StoredRefund): Promise<void> {
  const payment = await payments.loadPayment(refund.payment_id);
  if (!payment) return;
  await takeOverOperation(refundOperation, { payment: payment as PaymentRecord, refund, source: 'reconciler' });
}
