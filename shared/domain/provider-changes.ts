import { logger } from '../logger.ts';
import type { ProviderChange } from '../providers/types.ts';
import { commit } from '../store/commit.ts';
import * as disputes from '../store/disputes.ts';
import * as ledger from '../store/ledger.ts';
import * as payments from '../store/payments.ts';
import type { PaymentRecord, StoredPayment } from '../store/payments.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { clock, isoNow } from '../model/clock.ts';
import { OperationInProgress } from '../model/errors.ts';
import { recordDisputeChange } from './disputes.ts';
import { newEvent } from '../model/events.ts';
import { paymentView } from './payment-view.ts';
import { confirmRefund, failRefund, type OutcomeContext } from './refund-outcomes.ts';
import { allows, PAYMENT } from '../model/state-machines.ts';
import { historyEntry } from './timeline-entries.ts';

/**
 * Applies one change a provider reported about one of our payments (by notification, or answering the reconciler).
 * Every change is a transition of a state machine table, written on condition of the state it moves from: a report
 * that comes twice, or after a later one, finds its transition no longer allowed and changes nothing. True when it changed
 * something.
 */
export async function applyProviderChange(stored: StoredPayment, change: ProviderChange, context: OutcomeContext): Promise<boolean> {
  const payment = change.object === 'capture' || change.object === 'cancellation' ? await afterOperationInFlight(stored) : stored;
  if (payment.status === 'processing') return false;
  const shown = payment as PaymentRecord;
  switch (change.object) {
    case 'capture':
      return change.status === 'succeeded' ? confirmAwaiting(shown, 'capture', context) : failCapture(shown, change.reason, context);
    case 'cancellation':
      if (change.status === 'failed') logger.warn('The provider failed a cancellation it had accepted', { payment_id: payment.id });
      return confirmAwaiting(shown, 'void', context, change.status === 'failed' ? 'cancellation.failed' : undefined);
    case 'refund':
      return applyRefundChange(shown, change, context);
    case 'dispute':
      return recordDisputeChange(shown, change, context);
  }
}

const SETTLE_WAIT_MS = 3_000;

/**
 * A provider may notify the outcome of a capture or void before the request that made it has recorded the provider's
 * answer (Adyen is that fast): the notification waits a moment for that record, so it applies to what the request
 * wrote. A request still running after that answers 409: the provider sends the notification again later.
 */
async function afterOperationInFlight(payment: StoredPayment): Promise<StoredPayment> {
  const deadline = performance.now() + SETTLE_WAIT_MS;
  let current = payment;
  const inFlight = (p: StoredPayment) => p.op && !p.op.awaiting && p.op.kind !== 'authorize' && p.op.lease_until >= clock.now();
  while (inFlight(current)) {
    if (performance.now() >= deadline) throw new OperationInProgress(5);
    await sleep(100);
    current = (await payments.getStoredPayment(payment, payment.id)) ?? current;
  }
  return current;
}

/** The provider confirms a capture or cancellation it had accepted for later: the awaiting operation ends. */
async function confirmAwaiting(
  payment: PaymentRecord & { op?: StoredPayment['op'] },
  kind: 'capture' | 'void',
  context: OutcomeContext,
  change?: string,
) {
  const op = payment.op;
  if (!op || op.kind !== kind || !op.awaiting) return false;
  const confirmed = await commit({
    writes: [
      {
        update: payments.paymentTarget(payment),
        append: {
          history: [historyEntry(change ?? `${kind === 'capture' ? 'capture' : 'cancellation'}.confirmed`, context.source, context.reference)],
        },
        operation: { finish: op.id },
      },
      ...(context.seen ? [context.seen] : []),
    ],
  });
  return confirmed === 'committed';
}

/**
 * A capture the provider failed after accepting it: the payment is authorized again (`succeeded`), its captured
 * amount, revenue and pending funds are taken back, and `payment.capture_failed` is sent. Not once money was
 * refunded from it (a provider fails a capture before any refund could be made).
 */
async function failCapture(
  payment: PaymentRecord & { op?: StoredPayment['op'] },
  reason: string | undefined,
  context: OutcomeContext,
): Promise<boolean> {
  if (!allows(PAYMENT, 'captureFail', payment.status) || payment.amount_refunded > 0) return false;
  const capturedAt = payment.history?.findLast((h) => h.change === 'payment.captured')?.at ?? payment.updated_at;
  const now = isoNow();
  const next: PaymentRecord = { ...payment, status: PAYMENT.captureFail.to, amount_captured: 0, updated_at: now };
  const event = newEvent(payment, PAYMENT.captureFail.event, { ...paymentView(next), failure_reason: reason ?? null });
  const op = payment.op?.kind === 'capture' ? payment.op : undefined;
  const committed = await commit({
    writes: [
      {
        update: payments.paymentTarget(payment),
        transition: PAYMENT.captureFail,
        expect: { amount_refunded: 0 },
        set: { amount_captured: 0, updated_at: now },
        append: { history: [historyEntry('payment.capture_failed', context.source, context.reference, now)] },
        ...(op ? { operation: { finish: op.id } } : {}),
      },
      ...(context.seen ? [context.seen] : []),
    ],
    events: [event],
    counters: [
      ...ledger.captureReversalCounters(payment, payment.currency, payment.amount_captured, ledger.dayOf(capturedAt)),
      ...payments.paymentCountChange(payment, 'captured', 'succeeded'),
    ],
  });
  if (committed === 'refused') return false;
  return true;
}

type RefundChange = Extract<ProviderChange, { object: 'refund' }>;

/** A refund's outcome: ours by the id we tagged it with, or by the provider's id of it. A refund made elsewhere is ignored. */
async function applyRefundChange(payment: PaymentRecord, change: RefundChange, context: OutcomeContext): Promise<boolean> {
  if (change.status === 'pending') return false;
  const { refunds } = await disputes.disputesAndRefundsOf(payment.id);
  const refund = refunds.find((r) => (change.refundId && r.id === change.refundId) || r.provider_reference === change.refundReference);
  if (!refund) {
    logger.info('A provider reported a refund not made through this service; ignored', { payment_id: payment.id });
    return false;
  }
  // Both read the payment as it is now themselves.
  if (change.status === 'succeeded') return (await confirmRefund(payment, refund, change.refundReference, context)).applied;
  return failRefund(payment, refund, change.reason ?? 'the provider reported the refund failed', context);
}
