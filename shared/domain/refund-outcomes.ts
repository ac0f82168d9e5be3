import { setTimeout as sleep } from 'node:timers/promises';
import { commit, type Create } from '../store/commit.ts';
import * as ledger from '../store/ledger.ts';
import * as payments from '../store/payments.ts';
import type { PaymentRecord, RefundRecord, StoredRefund } from '../store/payments.ts';
import { OperationInProgress } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { paymentView } from './payment-view.ts';
import { refundObject } from './refunds.ts';
import { allows, PAYMENT, REFUND } from '../model/state-machines.ts';
import { type ChangeSource, historyEntry } from './timeline-entries.ts';
import { count } from '../metrics.ts';
import { modeOf } from './route-targets.ts';

/**
 * How a refund ends, whoever learns it (the refund request, a provider's notification, the reconciler): confirmed
 * with its counters and `payment.refunded`, or failed with its amount given back and `refund.failed`. Both are
 * transitions of the REFUND table, so a second report of the same outcome, or a late one, changes nothing.
 */
export interface OutcomeContext {
  source: ChangeSource;
  /** the provider's reference of the change (its refund id, its event id) */
  reference: string | null;
  /** written with the change: the notification that reported it, so it is never applied twice */
  seen?: Create;
}

/** The refund endpoint's answer: the payment with the refund's id and amount, and the committed amount refunded. */
export function refundView(payment: PaymentRecord, refund: RefundRecord) {
  return { ...paymentView(payment), refund_id: refund.id, amount: refund.amount, amount_refunded: payment.amount_refunded };
}

const PLANNED_ATTEMPTS = 4;
const UNPLANNED_ATTEMPTS = 8;
const pause = (attempt: number) => sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));

/**
 * Confirms a pending refund. Once the provider has refunded, the refund must be recorded whatever else is happening:
 * planned counters (taking from available, then pending) are tried a few times, then counters that need no plan.
 * Answers the endpoint's view, and whether this call made the change (false: it was already settled).
 */
export async function confirmRefund(payment: PaymentRecord, refund: StoredRefund, providerRefundId: string, context: OutcomeContext) {
  const day = ledger.dayOf(refund.created_at);
  let current = refund;
  for (let attempt = 0; attempt < PLANNED_ATTEMPTS + UNPLANNED_ATTEMPTS; attempt++) {
    if (attempt > 0) await pause(attempt);
    const paymentNow = payments.getStoredPayment(payment, payment.id) as Promise<PaymentRecord>;
    if (!allows(REFUND, 'confirm', current.status)) return { view: refundView(await paymentNow, current), applied: false };
    // The payment (for the answer and the event) and the balance cells the plan draws on are read at once.
    const [now, counters] = await Promise.all([
      paymentNow,
      attempt < PLANNED_ATTEMPTS
        ? ledger.refundCounters(payment, payment.currency, refund.amount, day)
        : ledger.unplannedRefundCounters(payment, payment.currency, refund.amount, day),
    ]);
    const view = refundView(now, current);
    const event = newEvent(payment, 'payment.refunded', view);
    const confirmed = await commit({
      writes: [
        {
          update: payments.refundTarget(current),
          transition: REFUND.confirm,
          set: { provider_reference: providerRefundId },
          append: { history: [historyEntry('refund.succeeded', context.source, context.reference)] },
          ...(current.op ? { operation: { finish: current.op.id } } : {}),
        },
        ...(context.seen ? [context.seen] : []),
      ],
      events: [event],
      counters,
      // the counters' cells kept conflicting with other writes: read again and retry, like a refusal
      cancelled: 'contended',
    });
    if (confirmed === 'committed') {
      await countRefund(payment, 'succeeded');
      return { view, applied: true };
    }
    const reread = await payments.getRefund(refund.payment_id, refund.id);
    if (!reread) throw new Error(`Refund ${refund.id} disappeared while it was confirmed`);
    current = reread;
  }
  throw new Error('The refund could not be recorded: its writes kept conflicting');
}

/**
 * Fails a refund (refused by the provider, or failed at settlement after it was accepted): its amount goes back to
 * the payment (captured again when it was the only money refunded), and a refund that had been confirmed gives its
 * money back to the balance. False when it had already failed.
 */
export async function failRefund(payment: PaymentRecord, refund: StoredRefund, failureReason: string, context: OutcomeContext): Promise<boolean> {
  let current = refund;
  for (let attempt = 0; attempt < PLANNED_ATTEMPTS + UNPLANNED_ATTEMPTS; attempt++) {
    if (attempt > 0) await pause(attempt);
    if (!allows(REFUND, 'fail', current.status)) return false;
    const now = (await payments.getStoredPayment(payment, payment.id)) as PaymentRecord;
    const last = now.status === 'refunded' && now.amount_refunded === current.amount;
    const failed: StoredRefund = { ...current, status: REFUND.fail.to, failure_reason: failureReason, op: undefined };
    const event = newEvent(payment, REFUND.fail.event, refundObject(failed));
    const given = await commit({
      writes: [
        {
          update: payments.paymentTarget(now),
          ...(last ? { transition: PAYMENT.restore } : {}),
          add: { amount_refunded: -current.amount },
          expect: { amount_refunded: now.amount_refunded },
        },
        {
          update: payments.refundTarget(current),
          transition: { ...REFUND.fail, from: [current.status] },
          set: { failure_reason: failureReason },
          append: { history: [historyEntry('refund.failed', context.source, context.reference)] },
          ...(current.op ? { operation: { finish: current.op.id } } : {}),
        },
        ...(context.seen ? [context.seen] : []),
      ],
      events: [event],
      counters: [
        ...(last ? payments.paymentCountChange(now, 'refunded', 'captured') : []),
        ...(current.status === 'succeeded'
          ? ledger.refundReversalCounters(payment, payment.currency, current.amount, ledger.dayOf(current.created_at))
          : []),
      ],
    });
    if (given === 'committed') {
      await countRefund(payment, 'failed');
      return true;
    }
    const reread = await payments.getRefund(refund.payment_id, refund.id);
    if (!reread) throw new Error(`Refund ${refund.id} disappeared while it failed`);
    current = reread;
  }
  throw new OperationInProgress(1, 'this payment (concurrent refunds)');
}

/** A refund's outcome as a business metric (pending when the provider accepted it for later). */
export const countRefund = (payment: PaymentRecord, outcome: 'succeeded' | 'pending' | 'failed'): Promise<void> =>
  count('Refunds', { mode: modeOf(payment), provider: payment.provider ?? 'unknown', outcome });
