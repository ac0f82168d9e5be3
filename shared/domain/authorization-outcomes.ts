import { lookupWithin, type ProviderName } from '../providers/index.ts';
import type { TransactItem } from '../store/client.ts';
import { commit } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as customers from '../store/customers.ts';
import type { CardOnFile } from '../store/customers.ts';
import * as inbound from '../store/inbound.ts';
import * as ledger from '../store/ledger.ts';
import type { AttemptOutcome } from '../store/ledger.ts';
import * as payments from '../store/payments.ts';
import type { PaymentAttempt, PaymentRecord, StoredPayment } from '../store/payments.ts';
import { clock } from '../model/clock.ts';
import { connectorForOperation } from './connectors.ts';
import { OperationInProgress } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { idFor, type Origin } from '../model/ids.ts';
import { takeOverOperation } from './operations.ts';
import { paymentView } from './payment-view.ts';
import { ATTEMPT, PAYMENT, transition } from '../model/state-machines.ts';
import { type ChangeSource, historyEntry } from './timeline-entries.ts';

/*
 * How an authorization ends, whoever learns it (the create, the shopper's return from 3-D Secure, a retried request
 * or the reconciler finding it unfinished): `finishCreate` records the payment succeeded or failed, once, with its
 * event, counters and card on file; `resolveAuthorization` first asks the provider what an unfinished one holds.
 */

/** Where the automatic capture's operation id comes from: the payment, so every run that carries it out asks once. */
export const automaticCaptureOrigin = (payment: PaymentRecord): Origin => ({
  at: Date.parse(payment.created_at),
  seed: `${payment.id}#automatic-capture`,
});

/**
 * The automatic capture, written with the authorization with its lease already ended: the create takes it over at
 * once, and if the create dies first, the reconciler does.
 */
const automaticCapture = (payment: PaymentRecord): Operation => ({
  id: idFor('operation', automaticCaptureOrigin(payment)),
  kind: 'capture',
  lease_until: clock.now() - 1,
  provider: payment.provider!,
  ...(payment.connector_id ? { connector_id: payment.connector_id } : {}),
  reference: payment.provider_reference!,
  amount: payment.amount,
  currency: payment.currency,
});

/** The payment's attempts with the one of `id` moved along ATTEMPT. */
export const finishAttempt = (p: StoredPayment, id: string, step: keyof typeof ATTEMPT, declineCode: string | null = null): PaymentAttempt[] =>
  (p.attempts ?? []).map((a) => (a.id === id ? { ...a, status: transition('attempt', ATTEMPT, step, a.status).to, decline_code: declineCode } : a));

/** Records the create's outcome (succeeded or failed) with its event, counters and card on file; the attempt's operation ends. */
export async function finishCreate(
  payment: PaymentRecord,
  op: Operation,
  attempts: readonly AttemptOutcome[],
  {
    keepOperation = false,
    source = sourceOf(payment),
    onFile,
    also = [],
    after,
  }: {
    keepOperation?: boolean;
    source?: ChangeSource;
    onFile?: CardOnFile | null;
    also?: readonly TransactItem[];
    /** the shopper's authentication ended it (`requires_action` before), not the create */
    after?: 'requires_action';
  } = {},
): Promise<void> {
  const succeeded = payment.status === 'succeeded';
  const step = after ? (succeeded ? 'authenticate' : 'failAuthentication') : succeeded ? 'authorize' : 'decline';
  const event = newEvent(payment, succeeded ? 'payment.succeeded' : 'payment.failed', paymentView(payment));
  const { card } = payment;
  const cardOnFile =
    succeeded && payment.customer_id && payment.provider && payment.provider_token && !alreadyOnFile(onFile, payment)
      ? [
          customers.cardOnFileUpdate(payment.customer_id, {
            provider: payment.provider,
            connector_id: payment.connector_id ?? null,
            provider_token: payment.provider_token,
            fingerprint: card.fingerprint || null,
            brand: card.brand,
            last4: card.last4,
            exp_month: card.exp_month,
            exp_year: card.exp_year,
          }),
        ]
      : [];
  const { status: _status, history: _history, ...fields } = payment;
  const result = await commit({
    writes: [
      {
        update: payments.paymentTarget(payment),
        transition: PAYMENT[step],
        set: fields,
        append: { history: [historyEntry(event.type, source, payment.provider_reference)] },
        operation: keepOperation
          ? undefined
          : succeeded && payment.capture_method === 'automatic'
            ? { replace: op.id, with: automaticCapture(payment) }
            : { finish: op.id },
      },
      // What the provider's notifications name (its reference) leads back to this payment (since awaitShopper when
      // the shopper authenticated first).
      ...(succeeded && !after && payment.connector_id && payment.provider_reference
        ? [inbound.paymentReferenceWrite(payment.connector_id, payment.provider_reference, payment)]
        : []),
    ],
    events: [event],
    counters: [
      ...cardOnFile,
      ...also,
      ...ledger.authorizationCounters(payment, attempts),
      ...payments.paymentCountChange(payment, after ?? null, payment.status),
    ],
  });
  if (result === 'refused') throw new OperationInProgress(1);
}

/**
 * The customer's card on file is already this payment's card, at the same account: the token it keeps charges that
 * card there (a charge of it, or a later payment with the same card, expiry and account), so it is not written again.
 */
function alreadyOnFile(onFile: CardOnFile | null | undefined, payment: PaymentRecord): boolean {
  if (!onFile || onFile.provider !== payment.provider || (onFile.connector_id ?? null) !== (payment.connector_id ?? null)) return false;
  if (onFile.provider_token === payment.provider_token) return true;
  const { card } = payment;
  return !!onFile.fingerprint && onFile.fingerprint === card.fingerprint && onFile.exp_month === card.exp_month && onFile.exp_year === card.exp_year;
}

/** Who created the payment: a renewal's charge of the card on file is the schedule's; any other, the API's. */
export const sourceOf = (payment: PaymentRecord): ChangeSource => (payment.routing_decision?.strategy === 'card_on_file' ? 'schedule' : 'api');

/**
 * A payment a retried request (or the reconciler) finds with its authorization unfinished: once the lease ended, the
 * provider is asked what it holds under the attempt's key. Authorized: the payment is recorded as succeeded.
 * Nothing: the processing payment is removed (`absent`: the request may run again, as if it never had). Still
 * unknown: it stays for later. A payment recorded `failed` with an unknown attempt has any authorization reversed.
 */
export async function resolveAuthorization(payment: StoredPayment, by: 'request' | 'reconciler'): Promise<'settled' | 'absent' | 'pending'> {
  const op = payment.op;
  if (!op || op.kind !== 'authorize') return 'settled';
  return takeOverOperation<void, Lookup, 'settled' | 'absent' | 'pending'>({
    what: 'this payment',
    target: () => payments.paymentTarget(payment),
    held: () => op,
    busy: async (_, held) => {
      if (by === 'reconciler') return 'pending';
      throw new OperationInProgress((held.lease_until - clock.now()) / 1000);
    },
    onRefused: async () => 'pending',
    call: async (held) => {
      const connector = await connectorForOperation(payment, held);
      const found = await lookupWithin(connector, held.id);
      // Recorded failed while its attempt was unknown, or nothing found (or nobody can tell): the key is closed at
      // the provider, cancelling whatever it holds or will hold under it (a request still in flight can no longer
      // authorize).
      const unused = payment.status !== 'processing' || (found.found !== 'authorized' && found.found !== 'declined');
      return { found, reversed: unused ? (await connector.reverse(held.id)).ok : false };
    },
    record: ({ found, reversed }, held) => recordLookup(payment, held, found, reversed, by === 'reconciler' ? 'reconciler' : undefined),
  });
}

/** What the provider holds under an unfinished authorization's key, and whether the key was closed there. */
interface Lookup {
  found: Awaited<ReturnType<typeof lookupWithin>>;
  reversed: boolean;
}

/** What the provider holds under an unfinished authorization's key, recorded on its payment. */
async function recordLookup(
  payment: StoredPayment,
  op: Operation,
  found: Lookup['found'],
  reversed: boolean,
  reconciler?: 'reconciler',
): Promise<'settled' | 'absent' | 'pending'> {
  if (payment.status !== 'processing') {
    // Recorded failed while its attempt was unknown: whatever the provider held under the key was reversed.
    if (!reversed) return 'pending';
    await commit({
      writes: [
        { update: payments.paymentTarget(payment), operation: { finish: op.id }, set: { attempts: finishAttempt(payment, op.id, 'reverse') } },
      ],
    });
    return 'settled';
  }
  const { op: _op, last_operation: _last, ...record } = payment;
  const attempt = { provider: op.provider as ProviderName, approved: found.found === 'authorized', latencyMs: 0 };
  const source = reconciler ?? sourceOf(record as PaymentRecord);
  if (found.found === 'authorized') {
    const authorized: PaymentRecord = {
      ...(record as PaymentRecord),
      status: 'succeeded',
      provider: attempt.provider,
      attempts: finishAttempt(payment, op.id, 'authorize'),
      connector_id: op.connector_id ?? null,
      provider_reference: found.reference,
      provider_token: found.providerToken || null,
    };
    await finishCreate(authorized, op, [attempt], { source });
    return 'settled';
  }
  if (found.found === 'declined') {
    const declined: PaymentRecord = {
      ...(record as PaymentRecord),
      status: 'failed',
      provider: attempt.provider,
      connector_id: op.connector_id ?? null,
      decline_code: found.declineCode,
      attempts: finishAttempt(payment, op.id, 'decline', found.declineCode),
    };
    await finishCreate(declined, op, [attempt], { source });
    return 'settled';
  }
  // Nothing found, or nobody can tell (a provider with no read by reference): removed once the key is closed.
  if (!reversed) return 'pending';
  await commit({ writes: [{ remove: payments.paymentTarget(payment), operation: op.id, inStates: ['processing'] }] });
  return 'absent';
}
