import type * as v from 'valibot';
import type { OperationResult } from '../providers/index.ts';
import { connectorForOperation } from './connectors.ts';
import { modeOf } from './route-targets.ts';
import type { CaptureBody, ListPaymentsQuery, UpdatePaymentBody } from '../schemas/payments.ts';
import { commit } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as payments from '../store/payments.ts';
import type { PaymentRead, PaymentRecord, StoredPayment } from '../store/payments.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { clock, isoNow } from '../model/clock.ts';
import { BadRequest, InvalidState, NotFound, OperationInProgress } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import * as ledger from '../store/ledger.ts';
import { asRetried, awaiting, beginOn, type DeclaredOperation, giveUp, leaseFromNow, runOperation, takeOverOperation } from './operations.ts';
import { resolveAuthorization } from './authorization-outcomes.ts';
import { paymentView, type PaymentView } from './payment-view.ts';
import { askingProvider } from './shopper-authentication.ts';
import { PAYMENT, transition } from '../model/state-machines.ts';
import { type ChangeSource, historyEntry } from './timeline-entries.ts';
import { count } from '../metrics.ts';
import { annotate } from '../tracer.ts';

/**
 * Capture and void (the payment state machine is the PAYMENT table in state-machines.ts; refunds are in
 * refund-operation.ts). Each goes through the operation primitive: `begin` puts the operation on the item
 * (conditional on the state and on no live operation), the provider is called under the operation's id as idempotency
 * key, and one commit applies the transition with its event and counters and finishes the operation. A run that dies leaves the operation for the reconciler,
 * which calls the provider again under the same key (no second effect) and finishes it.
 */
export async function load(merchant: Merchant, paymentId: string, read?: PaymentRead): Promise<StoredPayment & PaymentRecord> {
  annotate({ payment: paymentId });
  const payment = await payments.getStoredPayment(ownerOf(merchant), paymentId, read);
  // Test and live are apart: a payment of the other mode answers as if absent.
  if (!payment || payment.status === 'processing' || payment.livemode !== merchant.livemode) throw new NotFound();
  return payment as StoredPayment & PaymentRecord;
}

export async function getPayment(merchant: Merchant, paymentId: string) {
  return paymentView(await load(merchant, paymentId));
}

/**
 * Changes the fields sent of `description` (null clears it) and `metadata` (replaced whole). Nothing about money
 * moves, so no state changes and no event is emitted (the event list of docs/api.md "Webhooks" has no `payment.updated`).
 */
export async function updatePayment(merchant: Merchant, paymentId: string, input: v.InferOutput<typeof UpdatePaymentBody>) {
  const payment = await load(merchant, paymentId);
  const changes = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  if ((await commit({ writes: [payments.paymentDetailsChange(payment, { ...changes, updated_at: isoNow() })] })) === 'refused') throw new NotFound();
  return paymentView(await load(merchant, paymentId));
}

type ListInput = v.InferOutput<typeof ListPaymentsQuery>;

export async function listPayments(merchant: Merchant, query: ListInput) {
  const { limit, starting_after, ending_before, status, currency, provider, customer_email, card_last4 } = query;
  const result = await payments.listPayments(
    ownerOf(merchant),
    { status, currency, provider, customer_email, card_last4, created_gte: query['created[gte]'], created_lte: query['created[lte]'] },
    { limit, starting_after, ending_before },
  );
  return { object: 'list' as const, data: result.data.map(paymentView), has_more: result.has_more, total: result.total };
}

/** Captures all or part of the authorized amount; a partial capture releases the rest. */
export async function capturePayment(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof CaptureBody>, origin: Origin = freshOrigin()) {
  const payment = await load(merchant, paymentId);
  const amount = body.amount ?? payment.amount;
  return captureOrVoid(payment, 'capture', amount, origin);
}

export async function voidPayment(merchant: Merchant, paymentId: string, origin: Origin = freshOrigin()) {
  return captureOrVoid(await load(merchant, paymentId), 'void', undefined, origin);
}

/** An operation on an authorized payment, at the provider and account that hold its authorization. */
export const operationOn = (payment: PaymentRecord, id: string, kind: 'capture' | 'void' | 'refund', amount: number | undefined): Operation => ({
  id,
  kind,
  lease_until: leaseFromNow(),
  provider: payment.provider!,
  ...(payment.connector_id ? { connector_id: payment.connector_id } : {}),
  reference: payment.provider_reference!,
  amount,
  currency: payment.currency,
});

/** A capture or void of `payment` (as read) under the operation `opId`: what the declared `captureOrVoidOperation` is given. */
interface CaptureOrVoid {
  payment: StoredPayment & PaymentRecord;
  kind: 'capture' | 'void';
  amount: number | undefined;
  opId: string;
  source: ChangeSource;
}

/** A void while the shopper authenticates takes the shopper's operation over (a return meanwhile finds it gone). */
const cancelsAuthentication = ({ payment, kind }: CaptureOrVoid): boolean =>
  kind === 'void' && payment.status === 'requires_action' && payment.op?.kind === 'authenticate';

/**
 * A capture or void: begun on the payment (conditional on its state and on no live operation), the provider asked
 * under the operation's id, the payment moved with its event and counters. A retried request that already did it
 * replays; one whose run died takes its operation over.
 */
export const captureOrVoidOperation: DeclaredOperation<CaptureOrVoid, OperationResult, PaymentView> = {
  what: 'this payment',
  target: ({ payment }) => payments.paymentTarget(payment),
  replay: ({ payment, opId }) => (payment.last_operation === opId ? paymentView(payment) : undefined),
  // the shopper's own operation gives way to a void; a return asking the provider about it does not
  held: (input) => (cancelsAuthentication(input) && !askingProvider(input.payment) ? undefined : input.payment.op),
  own: ({ opId }, held) => held.id === opId,
  settleStale: async (input, stale) => {
    // one the provider accepted for later is settled by its notification or the reconciler, not by this request
    if (stale.awaiting) throw new OperationInProgress(1);
    return { again: { ...input, payment: await finishStale(input.payment) } };
  },
  start: (input) => {
    const { payment, kind, amount, opId } = input;
    const op = operationOn(payment, opId, kind, amount);
    if (cancelsAuthentication(input)) {
      return {
        op,
        begin: {
          writes: [{ update: payments.paymentTarget(payment), inStates: ['requires_action'], operation: { replace: payment.op!.id, with: op } }],
        },
      };
    }
    const { from } = transition('payment', PAYMENT, kind, payment.status);
    if (amount !== undefined && amount > payment.amount) throw new BadRequest('amount_too_large', 'amount');
    return { op, begin: beginOn(payments.paymentTarget(payment), op, { inStates: from }) };
  },
  onRefused: async (input, op) => {
    if (cancelsAuthentication(input)) throw new OperationInProgress(1);
    const { payment } = input;
    const now = await payments.getStoredPayment(payment, payment.id);
    if (now?.last_operation === op.id) return paymentView(now as PaymentRecord);
    if (now?.op) throw new OperationInProgress((now.op.lease_until - clock.now()) / 1000);
    // Moved by a racing request meanwhile; if the transition is still allowed, a retry runs it (409, nothing stored).
    if (now && (PAYMENT[input.kind].from as readonly string[]).includes(now.status)) throw new OperationInProgress(1);
    throw new InvalidState(undefined, `the payment became ${now?.status} meanwhile`);
  },
  call: async (op, { payment }, retried) => {
    const connector = await connectorForOperation(payment, op);
    const result =
      op.kind === 'capture'
        ? await connector.capture(op.reference!, op.amount!, payment.currency, op.id)
        : await connector.void(op.reference!, op.id);
    return asRetried(result, retried);
  },
  record: (result, op, { payment, source }) => recordPaymentOperation(payment, op, result, source),
};

/** Begins the capture or void on the payment, then carries it out. A retried request that already did it replays. */
const captureOrVoid = (payment: StoredPayment & PaymentRecord, kind: 'capture' | 'void', amount: number | undefined, origin: Origin) =>
  runOperation(captureOrVoidOperation, { payment, kind, amount, opId: idFor('operation', origin), source: 'api' });

/**
 * Another request's operation whose lease ended is on the payment: it is finished first (as the reconciler would),
 * so its provider call is recorded, never overwritten.
 */
async function finishStale(payment: StoredPayment & PaymentRecord): Promise<StoredPayment & PaymentRecord> {
  const op = payment.op!;
  const settled =
    op.kind === 'authorize'
      ? (await resolveAuthorization(payment, 'reconciler')) !== 'pending'
      : await reconcilePaymentOperation(payment).then(
          () => true,
          () => false,
        );
  const now = (await payments.getStoredPayment(payment, payment.id)) as StoredPayment & PaymentRecord;
  if (!settled && now.op) throw new OperationInProgress(1);
  return now;
}

/** The capture or void's answer: the payment moves with its event and counters, and the operation ends (or awaits). */
async function recordPaymentOperation(payment: StoredPayment, op: Operation, result: OperationResult, source: ChangeSource) {
  if (!result.ok) {
    if (op.kind === 'capture' && result.reason !== 'unknown') await countCapture(payment, 'failed');
    return giveUp(payments.paymentTarget(payment), payment, op, result);
  }
  const now = isoNow();
  const changes =
    op.kind === 'capture' ? { amount_captured: op.amount!, updated_at: now, last_operation: op.id } : { updated_at: now, last_operation: op.id };
  const step = PAYMENT[op.kind as 'capture' | 'void'];
  const next: PaymentRecord = { ...(payment as PaymentRecord), ...changes, status: step.to };
  const event = newEvent(payment, step.event, paymentView(next));
  // A provider that confirms later keeps the operation on the payment, awaiting its notification or the reconciler.
  const operation = result.pending ? { replace: op.id, with: awaiting(op) } : { finish: op.id };
  const committed = await commit({
    writes: [
      {
        update: payments.paymentTarget(payment),
        transition: step,
        set: changes,
        append: { history: [historyEntry(step.event, source, result.reference, now)] },
        operation,
      },
    ],
    events: [event],
    counters: [
      ...(op.kind === 'capture' ? ledger.captureCounters(payment, payment.currency, op.amount!, ledger.dayOf(now)) : []),
      ...payments.paymentCountChange(payment as PaymentRecord, payment.status as PaymentRecord['status'], step.to),
    ],
  });
  if (committed === 'refused') throw new OperationInProgress(1);
  if (op.kind === 'capture') await countCapture(payment, result.pending ? 'pending' : 'succeeded');
  return paymentView(next);
}

const countCapture = (payment: { livemode: boolean; provider?: string | null }, outcome: 'succeeded' | 'pending' | 'failed'): Promise<void> =>
  count('Captures', { mode: modeOf(payment), provider: payment.provider ?? 'unknown', outcome });

/** The reconciler's part: an operation whose lease ended is taken over and carried out again under its own key. */
export async function reconcilePaymentOperation(payment: StoredPayment): Promise<void> {
  const op = payment.op!;
  const kind = op.kind as 'capture' | 'void';
  await takeOverOperation(captureOrVoidOperation, {
    payment: payment as StoredPayment & PaymentRecord,
    kind,
    amount: op.amount,
    opId: op.id,
    source: 'reconciler',
  });
}
