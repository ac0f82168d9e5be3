import type { AuthorizeResult, ProviderName, ShopperAction } from '../providers/index.ts';
import { commit } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as inbound from '../store/inbound.ts';
import * as payments from '../store/payments.ts';
import type { PaymentRecord, StoredPayment } from '../store/payments.ts';
import { challengeOutcome } from './authentication-policy.ts';
import { finishAttempt, finishCreate, sourceOf } from './authorization-outcomes.ts';
import { clock } from '../model/clock.ts';
import { connectorForOperation } from './connectors.ts';
import { OperationInProgress } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { newId } from '../model/ids.ts';
import { leaseFromNow, runOperation } from './operations.ts';
import { paymentView } from './payment-view.ts';
import { tokenKeptOnApproval } from './saved-cards.ts';
import { threeDSecureLinks } from './signed-links.ts';
import { PAYMENT } from '../model/state-machines.ts';
import { type ChangeSource, historyEntry } from './timeline-entries.ts';

/*
 * 3-D Secure within a payment: the shopper is sent to authenticate (the payment waits `requires_action`), and their
 * return (or the reconciler, after their hour) records what the provider says. The pages they pass through are
 * three-d-secure.ts.
 */

/** How long a shopper may take to authenticate before the reconciler cancels the payment (docs/api.md "3-D Secure"). */
export const AUTHENTICATION_WINDOW_MS = 60 * 60_000;

/** Where the shopper comes back to (the provider's return, then the merchant's), and whether to ask for authentication. */
export interface ShopperAuthentication {
  providerReturnUrl: string;
  nextActionUrl: string;
  returnUrl: string;
  required: boolean;
}

/** The create's authentication links: our hand-off and return pages (signed, for the shopper's hour), and the merchant's return. */
export async function shopperAuthentication(
  paymentId: string,
  returnUrl: string,
  required: boolean,
  baseUrl: string,
): Promise<ShopperAuthentication> {
  const links = await threeDSecureLinks(baseUrl, paymentId, clock.now() + AUTHENTICATION_WINDOW_MS);
  return { nextActionUrl: links.handOff, providerReturnUrl: links.return, returnUrl, required };
}

/**
 * The issuer asks the shopper to authenticate: the payment waits `requires_action`, its attempt's operation becomes
 * the shopper's authentication (leased for the hour they have), and the create answers the next action.
 */
export async function awaitShopper(payment: PaymentRecord, attempt: Operation, action: ShopperAction, authentication: ShopperAuthentication) {
  const waiting: PaymentRecord = {
    ...payment,
    status: 'requires_action',
    provider_action: action,
    next_action: { type: 'redirect_to_url', redirect_to_url: { url: authentication.nextActionUrl, return_url: authentication.returnUrl } },
  };
  const shopperUntil = clock.now() + AUTHENTICATION_WINDOW_MS;
  const authenticating: Operation = {
    ...attempt,
    kind: 'authenticate',
    lease_until: shopperUntil,
    shopper_until: shopperUntil,
    reference: payment.provider_reference!,
  };
  const event = newEvent(waiting, 'payment.requires_action', paymentView(waiting));
  const { status: _status, history: _history, ...fields } = waiting;
  const result = await commit({
    writes: [
      {
        update: payments.paymentTarget(waiting),
        transition: PAYMENT.requireAction,
        set: fields,
        append: { history: [historyEntry(event.type, sourceOf(waiting), waiting.provider_reference)] },
        operation: { replace: attempt.id, with: authenticating },
      },
      // a cancellation meanwhile is notified under the provider's reference (Adyen confirms a void only so)
      ...(waiting.connector_id ? [inbound.paymentReferenceWrite(waiting.connector_id, waiting.provider_reference!, waiting)] : []),
    ],
    events: [event],
    counters: payments.paymentCountChange(waiting, null, 'requires_action'),
  });
  if (result === 'refused') throw new OperationInProgress(1);
  return waiting;
}

/**
 * The shopper came back from authenticating (or the reconciler asks after the hour): the provider is asked what it
 * holds, under a new key per try, and the payment is recorded succeeded or failed, once. A second return meanwhile
 * changes nothing (its take of the operation is refused); still waiting: the shopper's hour goes on.
 */
export async function finishAuthentication(payment: StoredPayment, returned: Record<string, string>, by: ChangeSource = 'api'): Promise<void> {
  const waiting = payment.op;
  if (payment.status !== 'requires_action' || waiting?.kind !== 'authenticate' || askingProvider(payment)) return;
  const shopperUntil = waiting.shopper_until ?? waiting.lease_until;
  // the shopper's hour is over (the reconciler): what the provider still holds undecided is cancelled there
  const abandoned = by === 'reconciler' && clock.now() >= shopperUntil;
  const asking: Operation = { ...waiting, id: newId('operation'), lease_until: leaseFromNow() };
  // what is restored while still undecided: the shopper's operation, leased to the end of their hour
  const held = (payment.attempts ?? []).find((a) => a.status === 'requires_action');
  const stillWaiting: Operation = { ...waiting, id: held?.id ?? waiting.id, lease_until: shopperUntil };
  const target = payments.paymentTarget(payment);
  await runOperation<void, AuthorizeResult, void>({
    what: 'this payment',
    target: () => target,
    start: () => ({
      op: asking,
      begin: { writes: [{ update: target, inStates: ['requires_action'], operation: { replace: waiting.id, with: asking } }] },
    }),
    onRefused: async () => undefined,
    call: async (op) => {
      const connector = await connectorForOperation(payment, op);
      const result = await connector.completeAuthentication(op.reference!, returned, op.id);
      if (!abandoned || result.outcome === 'approved' || result.outcome === 'declined') return result;
      const cancelled = await connector.void(op.reference!, `${op.id}_cancel`);
      return cancelled.ok ? ({ outcome: 'declined', declineCode: 'authentication_required', latencyMs: 0 } as const) : result;
    },
    record: async (result, op) => {
      const { op: _op, last_operation: _last, ...record } = payment;
      const attempt = { provider: op.provider as ProviderName, approved: result.outcome === 'approved', latencyMs: result.latencyMs };
      if (result.outcome === 'approved') {
        const authorized: PaymentRecord = {
          ...(record as PaymentRecord),
          status: 'succeeded',
          provider_reference: result.reference,
          provider_token: result.providerToken || null,
          three_d_secure: challengeOutcome(result),
          attempts: held ? finishAttempt(payment, held.id, 'authorize') : record.attempts,
        };
        const also = tokenKeptOnApproval(authorized, result);
        return finishCreate(authorized, op, [attempt], { source: by, after: 'requires_action', also });
      }
      if (result.outcome === 'declined') {
        const declined: PaymentRecord = {
          ...(record as PaymentRecord),
          status: 'failed',
          decline_code: result.declineCode,
          three_d_secure: challengeOutcome(result),
          attempts: held ? finishAttempt(payment, held.id, 'decline', result.declineCode) : record.attempts,
        };
        return finishCreate(declined, op, [attempt], { source: by, after: 'requires_action' });
      }
      // Still waiting, or the provider could not say: the shopper's hour goes on (the reconciler asks again after it).
      await commit({ writes: [{ update: target, operation: { replace: op.id, with: stillWaiting } }] });
    },
  });
}

/**
 * A return (or the reconciler) is asking the provider about the shopper's authentication: the payment's operation is
 * not the shopper's own (its attempt's), and its lease runs. Nothing else takes it over meanwhile.
 */
export const askingProvider = (payment: StoredPayment): boolean =>
  payment.op?.kind === 'authenticate' && !(payment.attempts ?? []).some((a) => a.id === payment.op!.id) && payment.op.lease_until >= clock.now();
