import { type AuthorizeRequest, type AuthorizeResult, authorizeWithin, type Connector, lookupWithin } from '../providers/index.ts';
import { logger } from '../logger.ts';
import { count } from '../metrics.ts';
import type { TransactItem } from '../store/client.ts';
import { type Change, commit } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import type { CardOnFile } from '../store/customers.ts';
import type { AttemptOutcome } from '../store/ledger.ts';
import * as paymentMethodsStore from '../store/payment-methods.ts';
import * as payments from '../store/payments.ts';
import type { PaymentAttempt, PaymentRecord } from '../store/payments.ts';
import { attemptReason, type PassedOver } from './attempt-reasons.ts';
import { AUTHENTICATION_DECLINE, authenticatesElsewhere, redirectsShopper } from './authentication-policy.ts';
import { finishCreate } from './authorization-outcomes.ts';
import { updateSavedCard } from './card-updates.ts';
import { isoNow } from '../model/clock.ts';
import { connectorForTarget } from './connectors.ts';
import { describeTarget, modeOf, type RouteTarget } from './route-targets.ts';
import { OperationInProgress, OutcomeUnknown, ProvidersUnavailable } from '../model/errors.ts';
import { newId } from '../model/ids.ts';
import { leaseFromNow, runOperation } from './operations.ts';
import type { RoutedTargets, SoftFailureSeen } from './payment-routing.ts';
import { countAttempt } from './routing-context.ts';
import { awaitShopper, type ShopperAuthentication } from './shopper-authentication.ts';
import { ATTEMPT, transition } from '../model/state-machines.ts';

/** A payment to authorize: where, with what, and what a create or a renewal adds to it. */
export interface Authorization {
  /** the payment, stored `processing` with its first attempt */
  payment: PaymentRecord;
  /** the targets to try in order, and the routing decision shown for the one that answered */
  route: RoutedTargets;
  /** what each target is sent: the card, or its token there, and who initiated the charge */
  methodAt: (target: RouteTarget) => Pick<AuthorizeRequest, 'card' | 'providerToken' | 'initiator'>;
  /** items an approval at `target` writes with the payment (a saved card's token there) */
  kept?: (target: RouteTarget, result: AuthorizeResult) => TransactItem[];
  /** the customer's card on file as read before: not written again when it is this payment's card */
  onFile?: CardOnFile | null;
  /** called as each attempt's answer is recorded, before its commit */
  answered?: () => void;
  /** the shopper is present and may authenticate (3-D Secure) */
  authentication?: ShopperAuthentication;
  renewal?: RenewalAttempts;
}

/** What a renewal's charge adds to its attempts. */
export interface RenewalAttempts {
  /** what made the charge run: each attempt keeps why it was made */
  why: string;
  /** items written with the payment's outcome (the attempts on the renewal's invoice) */
  recorded: (payment: PaymentRecord) => TransactItem[];
  /** counter cells the attempt (by index) writes in its own transaction: refused, it is not made */
  counted?: (index: number) => TransactItem[];
  /** a decline with this code fails over to the next target too (a soft decline) */
  failoverOnDecline?: (declineCode: string) => boolean;
}

/**
 * Authorizes the payment at the first of its route's targets that answers (failing over on soft failures), each
 * attempt under its own operation, and records the outcome: the payment succeeded, or failed with its decline code.
 * Undefined when a payment with its id is already stored (nothing was asked). Throws OutcomeUnknown (recorded failed,
 * reversed later) or ProvidersUnavailable (nothing held, nothing kept).
 */
export async function authorizePayment({
  payment: base,
  route: { targets, describe },
  methodAt,
  kept = () => [],
  onFile,
  answered = () => undefined,
  authentication,
  renewal,
}: Authorization): Promise<PaymentRecord | undefined> {
  const tried: Promise<void>[] = [];
  const passedOver: PassedOver[] = [];
  const attempts: AttemptOutcome[] = [];
  /** what the payment shows: every attempt, written pending before its call and finished after */
  const trail: PaymentAttempt[] = [];
  const softFailures: SoftFailureSeen[] = [];
  let op: Operation | undefined;
  // An account that cannot send the shopper to authenticate declined `authentication_required`: the rest of the
  // route is the accounts that can, each asked for 3-D Secure.
  let authenticateElsewhere = false;
  try {
    for (const [index, target] of targets.entries()) {
      if (authenticateElsewhere && !redirectsShopper(target)) continue;
      const { provider } = target;
      const method = methodAt(target);
      const next: Operation = {
        // A fresh key per attempt, written before the call: a key closed at the provider (reversed after a lost
        // answer) is never used again, so a request that runs again after it was closed can still authorize.
        id: newId('attempt'),
        kind: 'authorize',
        lease_until: leaseFromNow(),
        provider,
        ...(target.connectorId ? { connector_id: target.connectorId } : {}),
        attempt: index + 1,
      };
      const pending: PaymentAttempt = {
        id: next.id,
        status: 'pending',
        provider,
        connector_id: target.connectorId,
        decline_code: null,
        latency_ms: null,
        created_at: isoNow(),
        // the reason is kept on a renewal's attempts only (an ordinary payment's decision says it, in fewer bytes)
        ...(renewal ? { reason: attemptReason(target, passedOver.at(-1), method, renewal.why) } : {}),
      };
      // The first attempt creates the payment `processing` with its operation; a failover's replaces the one before.
      const counters = renewal?.counted?.(index) ?? [];
      const begin: Change = op
        ? {
            writes: [{ update: payments.paymentTarget(base), operation: { replace: op.id, with: next }, set: { attempts: [...trail, pending] } }],
            counters,
          }
        : {
            writes: [{ create: payments.paymentTarget(base), item: { ...base, status: 'processing', attempts: [pending] }, operation: next }],
            counters,
          };
      const first = !op;
      const step = await runOperation<void, AuthorizeResult, PaymentRecord | 'failover' | 'taken'>({
        what: 'this payment',
        target: () => payments.paymentTarget(base),
        start: () => ({ op: next, begin }),
        onRefused: async () => (first ? 'taken' : Promise.reject(new OperationInProgress(1))),
        call: async (attempt) => {
          const connector = await connectorForTarget(base, target);
          const request: AuthorizeRequest = {
            ...method,
            paymentId: base.id,
            idempotencyKey: attempt.id,
            amount: base.amount,
            currency: base.currency,
            attempt: index + 1,
            ...(authentication
              ? { authentication: { returnUrl: authentication.providerReturnUrl, required: authentication.required || authenticateElsewhere } }
              : {}),
            ...(method.card && (base.customer_id || base.payment_method_id)
              ? {
                  storeFor: {
                    customerReference: base.customer_id ?? base.payment_method_id!,
                    email: base.customer_email,
                    ...(base.payment_method_id ? { paymentMethodId: base.payment_method_id } : {}),
                  },
                }
              : {}),
          };
          const result = await authorizeWithin(connector, request);
          return result.outcome === 'unknown' ? resolveUnknown(connector, request, result.latencyMs) : result;
        },
        record: async (result, attempt) => {
          answered();
          attempts.push({ provider, approved: result.outcome === 'approved', latencyMs: result.latencyMs });
          await countAttemptOutcome(base, provider, result, index < targets.length - 1);
          trail.push({
            ...pending,
            status: transition('attempt', ATTEMPT, attemptStepOf(result), pending.status).to,
            decline_code: result.outcome === 'declined' ? result.declineCode : null,
            latency_ms: result.latencyMs,
          });
          // Routing statistics are best effort: their failure never fails a payment already recorded.
          tried.push(
            countAttempt(base, target, {
              approved: result.outcome === 'approved',
              latencyMs: result.latencyMs,
              amount: base.amount,
              currency: base.currency,
            }).catch((error: unknown) => logger.warn('Routing statistics not counted', { provider, error: (error as Error).message })),
          );
          const declinedSoftly = result.outcome === 'declined' && !!renewal?.failoverOnDecline?.(result.declineCode) && index < targets.length - 1;
          const toAuthenticate =
            !!authentication && result.outcome === 'declined' && authenticatesElsewhere(target, result.declineCode, targets.slice(index + 1));
          if (result.outcome === 'soft_failure' || declinedSoftly || toAuthenticate) {
            const reason = toAuthenticate ? AUTHENTICATION_DECLINE : result.outcome === 'declined' ? `declined ${result.declineCode}` : result.reason;
            softFailures.push({ target, reason, ...(toAuthenticate ? { authenticate: true } : {}) });
            passedOver.push({ target, result });
            authenticateElsewhere ||= toAuthenticate;
            return 'failover';
          }
          const routing_decision = describe(target, softFailures);
          const connector_id = target.connectorId;
          if (result.outcome === 'requires_action') {
            // The shopper must authenticate: no failover from here on (docs/api.md "3-D Secure").
            const waiting = { ...base, provider, connector_id, routing_decision, attempts: trail, provider_reference: result.reference };
            return awaitShopper(waiting, attempt, result.action, authentication!);
          }
          if (result.outcome === 'unknown') {
            // Neither answered nor found: the attempt may hold an authorization nobody can confirm now. The payment is
            // recorded failed with the operation still on it; the reconciler reverses whatever the provider holds.
            const failed = { ...base, provider, connector_id, routing_decision, decline_code: 'processing_error', attempts: trail };
            await finishCreate(failed, attempt, attempts, { keepOperation: true, also: renewal?.recorded(failed) });
            throw new OutcomeUnknown(base.id);
          }
          const payment: PaymentRecord =
            result.outcome === 'declined'
              ? {
                  ...base,
                  provider,
                  connector_id,
                  routing_decision,
                  decline_code: result.declineCode,
                  attempts: trail,
                  ...(result.threeDSecure ? { three_d_secure: result.threeDSecure } : {}),
                }
              : {
                  ...base,
                  attempts: trail,
                  status: 'succeeded',
                  provider,
                  connector_id,
                  provider_reference: result.reference,
                  provider_token: result.providerToken || null,
                  ...(result.threeDSecure ? { three_d_secure: result.threeDSecure } : {}),
                  routing_decision,
                };
          await finishCreate(payment, attempt, attempts, { onFile, also: [...kept(target, result), ...(renewal?.recorded(payment) ?? [])] });
          if (result.outcome === 'approved' && result.cardUpdate && base.payment_method_id)
            await savedCardUpdated(payment, base.payment_method_id, result.cardUpdate);
          return payment;
        },
      });
      if (step === 'taken') return undefined;
      if (step !== 'failover') return step;
      op = next;
    }
  } finally {
    await Promise.all(tried);
  }
  // Every provider failed before accepting: nothing is held, so nothing is kept (a retry runs again).
  if (op) await commit({ writes: [{ remove: payments.paymentTarget(base), operation: op.id, inStates: ['processing'] }] });
  const failed = softFailures.map((f) => `${describeTarget(f.target)} answered ${f.reason}`).join(', ');
  throw new ProvidersUnavailable(`no provider could take the payment (${failed}); nothing was charged`);
}

/**
 * The provider's updater changed the saved card while charging it (Adyen's Real Time Account Updater): the `pm_`
 * takes the news, so the next charge at any account sends the new expiry. A failure here is logged, never the charge's.
 */
async function savedCardUpdated(
  payment: PaymentRecord,
  paymentMethodId: string,
  update: NonNullable<Extract<AuthorizeResult, { outcome: 'approved' }>['cardUpdate']>,
) {
  const pm = await paymentMethodsStore.getPaymentMethod({ merchant_id: payment.merchant_id, livemode: payment.livemode }, paymentMethodId);
  if (!pm) return;
  await updateSavedCard(pm, update).catch((error: unknown) =>
    logger.error('A card update the provider reported was not kept', { payment_id: payment.id, error: (error as Error).message }),
  );
}

/** An attempt as business metrics: its outcome, a decline's code, a failover to the next target, an unknown outcome. */
async function countAttemptOutcome(payment: PaymentRecord, provider: string, result: AuthorizeResult, more: boolean): Promise<void> {
  const mode = modeOf(payment);
  const outcome = result.outcome === 'approved' ? 'approved' : result.outcome === 'soft_failure' ? 'failed' : result.outcome;
  await count('Authorizations', { mode, provider, outcome });
  if (result.outcome === 'declined') await count('Declines', { mode, provider, decline_code: result.declineCode });
  if (result.outcome === 'unknown') await count('UnknownOutcomes', { mode, provider, operation: 'authorize' });
  if (result.outcome === 'soft_failure' && more) await count('Failovers', { mode, provider });
}

/** An attempt's step (ATTEMPT) from its connector's answer (a soft failure after a reversal: its key is closed). */
const attemptStepOf = (result: AuthorizeResult): keyof typeof ATTEMPT =>
  result.outcome === 'requires_action'
    ? 'challenge'
    : result.outcome === 'approved'
      ? 'authorize'
      : result.outcome === 'declined'
        ? 'decline'
        : result.outcome === 'unknown'
          ? 'answerLost'
          : result.reason === 'timeout'
            ? 'reverse'
            : 'fail';

/**
 * An `unknown` authorization, resolved by asking the provider what it holds under the attempt's key: one found is
 * used; none means nothing is held (the attempt failed softly, routing may go on); `unknown` stays unknown.
 */
async function resolveUnknown(connector: Connector, request: AuthorizeRequest, latencyMs: number): Promise<AuthorizeResult> {
  const key = request.idempotencyKey;
  const found = await lookupWithin(connector, key, request);
  if (found.found === 'authorized') {
    const { reference, providerToken, networkTransactionId } = found;
    return { outcome: 'approved', reference, providerToken, networkTransactionId, latencyMs };
  }
  if (found.found === 'declined') return { outcome: 'declined', declineCode: found.declineCode, latencyMs };
  // Nothing found yet: the key is closed at the provider (cancelling anything that lands later) before failing over.
  if (found.found === 'none' && (await connector.reverse(key)).ok) return { outcome: 'soft_failure', reason: 'timeout', latencyMs };
  return { outcome: 'unknown', latencyMs };
}
