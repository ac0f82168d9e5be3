import type * as v from 'valibot';
import type { OperationResult } from '../providers/index.ts';
import { connectorForOperation, modeOf } from './connectors.ts';
import type { CaptureBody, ListPaymentsQuery, RefundBody } from '../schemas/payments.ts';
import { commit, type Operation, type Target } from '../store/commit.ts';
import {
  getRefund,
  getStoredPayment,
  type PaymentRead,
  listPayments as listRecords,
  loadPayment,
  paymentCountChange,
  type PaymentRecord,
  paymentTarget,
  refundTarget,
  type StoredPayment,
  type StoredRefund,
} from '../store/payments.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { clock, isoNow } from './clock.ts';
import {
  AppError,
  BadRequest,
  InvalidState,
  NotFound,
  OperationInProgress,
  OutcomeUnknown,
  ProviderRefused,
  ProvidersUnavailable,
} from './errors.ts';
import { newEvent } from './events.ts';
import { freshOrigin, idFor, type Origin } from './ids.ts';
import { captureCounters, dayOf } from '../store/ledger.ts';
import { OPERATION_LEASE_MS, paymentView, resolveAuthorization } from './payments.ts';
import { PAYMENT, transition } from './state-machines.ts';
import { confirmRefund, countRefund, failRefund, refundView } from './refund-outcomes.ts';
import { type ChangeSource, historyEntry } from './timeline-entries.ts';
import { count } from '../metrics.ts';
import { annotate } from '../tracer.ts';

/**
 * Capture, void and refund (the payment state machine is the PAYMENT table in state-machines.ts). Each goes through
 * the operation primitive: `begin` puts the operation on the item (conditional on the state and on no live
 * operation), the provider is called under the operation's id as idempotency key, and one commit applies the move
 * with its event and counters and finishes the operation. A run that dies leaves the operation for the reconciler,
 * which calls the provider again under the same key (no second effect) and finishes it.
 */
async function load(merchant: Merchant, paymentId: string, read?: PaymentRead): Promise<StoredPayment & PaymentRecord> {
  annotate({ payment: paymentId });
  const payment = await getStoredPayment(ownerOf(merchant), paymentId, read);
  // Test and live are apart: a payment of the other mode answers as if absent.
  if (!payment || payment.status === 'processing' || payment.livemode !== merchant.livemode) throw new NotFound();
  return payment as StoredPayment & PaymentRecord;
}

export async function getPayment(merchant: Merchant, paymentId: string) {
  return paymentView(await load(merchant, paymentId));
}

type ListInput = v.InferOutput<typeof ListPaymentsQuery>;

export async function listPayments(merchant: Merchant, query: ListInput) {
  const { limit, starting_after, ending_before, status, currency, provider, customer_email } = query;
  const result = await listRecords(
    ownerOf(merchant),
    { status, currency, provider, customer_email, created_gte: query['created[gte]'], created_lte: query['created[lte]'] },
    { limit, starting_after, ending_before },
  );
  return { object: 'list' as const, data: result.data.map(paymentView), has_more: result.has_more, total: result.total };
}

/** Captures all or part of the authorized amount; a partial capture releases the rest. */
export async function capturePayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof CaptureBody>, origin: Origin = freshOrigin()) {
  const payment = await load(merchant, paymentId);
  const amount = body.amount ?? payment.amount;
  return move(payment, 'capture', amount, origin);
}

export async function voidPayment(merchant: Merchant, paymentId: string, origin: Origin = freshOrigin()) {
  return move(await load(merchant, paymentId), 'void', undefined, origin);
}

/** Begins the capture or void on the payment, then carries it out. A retried request that already did it replays. */
/** An operation on an authorized payment, at the provider and account that hold its authorization. */
const operationOn = (payment: PaymentRecord, id: string, kind: 'capture' | 'void' | 'refund', amount: number | undefined): Operation => ({
  id,
  kind,
  lease_until: clock.now() + OPERATION_LEASE_MS,
  provider: payment.provider!,
  ...(payment.connector_id ? { connector_id: payment.connector_id } : {}),
  reference: payment.provider_reference!,
  amount,
  currency: payment.currency,
});

async function move(current: StoredPayment & PaymentRecord, kind: 'capture' | 'void', amount: number | undefined, origin: Origin) {
  let payment = current;
  const opId = idFor('operation', origin);
  if (payment.last_operation === opId) return paymentView(payment);
  if (payment.op?.id === opId) return carryOut(await takeOver(payment), payment.op, { retried: true });
  if (payment.op && !payment.op.awaiting) payment = await finishStale(payment);
  const { from } = transition('payment', PAYMENT, kind, payment.status);
  if (amount !== undefined && amount > payment.amount) throw new BadRequest('amount_too_large', 'amount');
  const op = operationOn(payment, opId, kind, amount);
  const began = await commit({ writes: [{ move: paymentTarget(payment), inStates: from, operation: { begin: op } }] });
  if (began === 'refused') {
    const now = await getStoredPayment(payment, payment.id);
    if (now?.op) throw new OperationInProgress((now.op.lease_until - clock.now()) / 1000);
    // Moved by a racing request meanwhile; if the move is still allowed, a retry runs it (409, nothing stored).
    if (now && (from as readonly string[]).includes(now.status)) throw new OperationInProgress(1);
    throw new InvalidState(undefined, `the payment became ${now?.status} meanwhile`);
  }
  return carryOut(payment, op);
}

/**
 * Another request's operation is on the payment: while its lease runs, this one waits (409); once it ended, the
 * operation is finished first (as the reconciler would), so its provider call is recorded, never overwritten.
 */
async function finishStale(payment: StoredPayment & PaymentRecord): Promise<StoredPayment & PaymentRecord> {
  const op = payment.op!;
  if (op.lease_until >= clock.now()) throw new OperationInProgress((op.lease_until - clock.now()) / 1000);
  const settled =
    op.kind === 'authorize'
      ? (await resolveAuthorization(payment, 'reconciler')) !== 'pending'
      : await reconcilePaymentOperation(payment).then(
          () => true,
          () => false,
        );
  const now = (await getStoredPayment(payment, payment.id)) as StoredPayment & PaymentRecord;
  if (!settled && now.op) throw new OperationInProgress(1);
  return now;
}

/** Takes over a payment's operation whose lease ended; refused while the run that began it may still be alive. */
async function takeOver<T extends StoredPayment | StoredRefund>(item: T): Promise<T> {
  const op = item.op!;
  const now = clock.now();
  if (op.lease_until >= now) throw new OperationInProgress((op.lease_until - now) / 1000);
  const target = 'payment_id' in item ? refundTarget(item) : paymentTarget(item);
  const leaseUntil = now + OPERATION_LEASE_MS;
  if ((await commit({ writes: [{ move: target, operation: { takeOver: op.id, now, leaseUntil } }] })) === 'refused') throw new OperationInProgress(1);
  return { ...item, op: { ...op, lease_until: leaseUntil } };
}

/**
 * Asks the provider for the payment's capture or void under the operation's key and records the answer. `retried`:
 * the operation was begun by an earlier run whose call may have taken effect, so only an answer under the key ends
 * it without effect; a provider that cannot be reached leaves the outcome unknown.
 */
export async function carryOut(payment: StoredPayment, op: Operation, { retried = false, source = 'api' as ChangeSource } = {}) {
  const connector = await connectorForOperation(payment, op);
  const result = asRetried(
    op.kind === 'capture' ? await connector.capture(op.reference!, op.amount!, payment.currency, op.id) : await connector.void(op.reference!, op.id),
    retried,
  );
  if (!result.ok) return giveUp(paymentTarget(payment), payment, op, result);
  const now = isoNow();
  const changes =
    op.kind === 'capture' ? { amount_captured: op.amount!, updated_at: now, last_operation: op.id } : { updated_at: now, last_operation: op.id };
  const move = PAYMENT[op.kind as 'capture' | 'void'];
  const moved: PaymentRecord = { ...(payment as PaymentRecord), ...changes, status: move.to };
  const event = newEvent(payment, move.event, paymentView(moved));
  // A provider that confirms later keeps the operation on the payment, awaiting its notification or the reconciler.
  const operation = result.pending ? { replace: op.id, with: awaiting(op) } : { finish: op.id };
  const committed = await commit({
    writes: [
      {
        move: paymentTarget(payment),
        transition: move,
        set: changes,
        append: { history: [historyEntry(move.event, source, result.reference, now)] },
        operation,
      },
    ],
    events: [event],
    counters: [
      ...(op.kind === 'capture' ? captureCounters(payment, payment.currency, op.amount!, dayOf(now)) : []),
      ...paymentCountChange(payment as PaymentRecord, 'succeeded', move.to),
    ],
  });
  if (committed === 'refused') throw new OperationInProgress(1);
  if (op.kind === 'capture') await countCapture(payment, result.pending ? 'pending' : 'succeeded');
  return paymentView(moved);
}

const countCapture = (payment: { livemode: boolean; provider?: string | null }, outcome: 'succeeded' | 'pending' | 'failed'): Promise<void> =>
  count('Captures', { mode: modeOf(payment), provider: payment.provider ?? 'unknown', outcome });

/** A retried call that could not reach the provider proves nothing about the first call: its outcome is unknown. */
const asRetried = (result: OperationResult, retried: boolean): OperationResult =>
  retried && !result.ok && result.reason === 'provider_down' ? { ok: false, reason: 'unknown' } : result;

/**
 * An operation on `target` (of `payment`) that did not go through: the provider could not be reached or
 * refused (nothing happened: the operation ends, the item stays), or its answer was lost (kept for the reconciler).
 */
export async function giveUp(
  target: Target,
  payment: { id: string; livemode: boolean; provider?: string | null },
  op: Operation,
  result: Extract<OperationResult, { ok: false }>,
): Promise<never> {
  const mode = modeOf(payment);
  const provider = op.provider ?? payment.provider ?? 'unknown';
  if (result.reason === 'unknown') {
    await count('UnknownOutcomes', { mode, provider, operation: op.kind });
    throw new OutcomeUnknown(payment.id);
  }
  if (op.kind === 'capture') await countCapture(payment, 'failed');
  await commit({ writes: [{ move: target, operation: { finish: op.id } }] });
  if (result.reason === 'refused') throw new ProviderRefused(op.provider ?? 'the provider', `the ${op.kind.replace('_', ' ')}`, result.message);
  throw new ProvidersUnavailable();
}

/** How long an accepted operation waits for the provider's notification before the reconciler asks about it. */
export const AWAIT_RECHECK_MS = 15 * 60_000;

/** The operation, accepted by the provider, now awaiting its outcome (notification, or the reconciler once due). */
export const awaiting = (op: Operation): Operation => ({ ...op, awaiting: true, lease_until: clock.now() + AWAIT_RECHECK_MS });

/**
 * Refunds `amount` (default: all that remains) of a captured payment. The refund is reserved first by a conditional
 * write that keeps the sum within the captured amount however many refunds race, with its operation on the refund
 * item; the provider is then asked under the refund's id, and the refund is confirmed with its event, or taken back.
 */
export async function refundPayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof RefundBody>, origin: Origin = freshOrigin()) {
  const refundId = idFor('refund', origin);
  const earlier = origin.seed === null ? undefined : await getRefund(paymentId, refundId);
  if (earlier) {
    const payment = await load(merchant, paymentId);
    if (!earlier.op || earlier.op.awaiting) return refundView(payment, earlier);
    return carryOutRefund(payment, await takeOver(earlier), { retried: true });
  }
  const { payment, refund } = await reserveRefund(merchant, paymentId, refundId, body);
  return carryOutRefund(payment, refund);
}

const RESERVE_ATTEMPTS = 5;

/**
 * Reserves the refund's amount on the payment. A reservation that loses to a concurrent refund is judged again on
 * the payment as it is now, as if this request had come after the other one: a default amount becomes what is left.
 * The first read may be stale (half the units): a reservation judged on it holds only while the payment still has the
 * status and the captured and refunded amounts it read, and a request it would turn away (missing, not refundable,
 * too large) is judged again on a consistent read.
 */
async function reserveRefund(merchant: Merchant, paymentId: string, refundId: string, body: v.InferOutput<typeof RefundBody>) {
  const createdAt = isoNow();
  const judge = async (read: PaymentRead) => {
    const payment = await load(merchant, paymentId, read);
    const move = transition('payment', PAYMENT, 'refund', payment.status);
    const remaining = payment.amount_captured - payment.amount_refunded;
    if (remaining <= 0) throw new InvalidState(undefined, 'the payment has been refunded in full');
    const amount = body.amount ?? remaining;
    if (amount > remaining) throw new BadRequest('amount_too_large', 'amount');
    return { payment, move, amount, read };
  };
  for (let attempt = 1; ; attempt++) {
    const { payment, move, amount, read } = await judge(attempt === 1 ? 'eventual' : 'consistent').catch((error: unknown) => {
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
      created_at: createdAt,
      op,
    };
    const reserved = await commit({
      writes: [
        // From the status read (not any status the move allows), so the status counts move exactly once.
        {
          move: paymentTarget(payment),
          transition: { ...move, from: [payment.status] },
          add: { amount_refunded: amount },
          atMost: { amount_refunded: payment.amount_captured - amount },
          ...(read === 'eventual' ? { expect: { amount_captured: payment.amount_captured, amount_refunded: payment.amount_refunded } } : {}),
          set: { updated_at: createdAt },
        },
        { create: refundTarget(refund), item: { ...refund, op: undefined }, operation: op },
      ],
      counters: paymentCountChange(payment, payment.status, 'refunded'),
    });
    if (reserved === 'committed') return { payment, refund };
    if (attempt === RESERVE_ATTEMPTS) throw new OperationInProgress(1, 'this payment (concurrent refunds)');
  }
}

/**
 * Asks the provider for the refund under the refund's id and records the answer: confirmed (counters and event),
 * accepted for later (the refund stays `pending`, its operation awaiting the provider's notification or the
 * reconciler), refused (the refund `failed`, its amount given back), or unreachable (taken back, as if never asked).
 */
async function carryOutRefund(payment: PaymentRecord, refund: StoredRefund, { retried = false, source = 'api' as ChangeSource } = {}) {
  const op = refund.op!;
  const result = asRetried(await (await connectorForOperation(payment, op)).refund(op.reference!, refund.amount, payment.currency, op.id), retried);
  if (!result.ok && result.reason === 'refused') {
    await failRefund(payment, refund, result.message, { source, reference: null });
    throw new ProviderRefused(payment.provider ?? 'the provider', `refund ${refund.id}`, result.message, 'amount');
  }
  if (!result.ok) {
    if (result.reason !== 'unknown') await takeBack(payment, refund);
    return giveUp(refundTarget(refund), payment, op, result);
  }
  if (!result.pending) return (await confirmRefund(payment, refund, result.reference, { source, reference: result.reference })).view;
  const accepted = await commit({
    writes: [
      {
        move: refundTarget(refund),
        inStates: ['pending'],
        set: { provider_reference: result.reference },
        append: { history: [historyEntry('refund.accepted', source, result.reference)] },
        operation: { replace: op.id, with: awaiting(op) },
      },
    ],
  });
  if (accepted === 'refused' && (await getRefund(refund.payment_id, refund.id))?.op?.id === op.id) throw new OperationInProgress(1);
  if (accepted === 'committed') await countRefund(payment, 'pending');
  return refundView((await getStoredPayment(payment, payment.id)) as PaymentRecord, refund);
}

/**
 * The provider refused the refund: its amount goes back to the payment in one transaction with the refund's removal;
 * when it was the only money refunded, the payment is captured again in the same transaction.
 */
async function takeBack(payment: PaymentRecord, refund: StoredRefund): Promise<void> {
  const remove = { remove: refundTarget(refund), operation: refund.op!.id };
  for (let attempt = 1; attempt <= RESERVE_ATTEMPTS; attempt++) {
    const now = (await getStoredPayment(payment, payment.id)) as PaymentRecord;
    const last = now.status === 'refunded' && now.amount_refunded === refund.amount;
    const given = await commit(
      last
        ? {
            writes: [
              {
                move: paymentTarget(now),
                transition: PAYMENT.restore,
                add: { amount_refunded: -refund.amount },
                expect: { amount_refunded: refund.amount },
              },
              remove,
            ],
            counters: paymentCountChange(now, 'refunded', 'captured'),
          }
        : {
            writes: [
              { move: paymentTarget(now), add: { amount_refunded: -refund.amount }, expect: { amount_refunded: now.amount_refunded } },
              remove,
            ],
          },
    );
    if (given === 'committed') return;
  }
  throw new OperationInProgress(1, 'this payment (concurrent refunds)');
}

/**
 * The reconciler's part for payments: an operation whose lease ended is taken over and carried out again under its
 * own key, so the provider's answer (or its earlier effect) is recorded exactly once.
 */
export async function reconcilePaymentOperation(payment: StoredPayment): Promise<void> {
  const taken = await takeOver(payment);
  await carryOut(taken, taken.op!, { retried: true });
}

export async function reconcileRefundOperation(refund: StoredRefund): Promise<void> {
  const payment = await loadPayment(refund.payment_id);
  if (!payment) return;
  await carryOutRefund(payment as PaymentRecord, await takeOver(refund), { retried: true });
}
