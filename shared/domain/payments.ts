import type * as v from 'valibot';
import {
  type AuthorizeRequest,
  type ShopperAction,
  type AuthorizeResult,
  authorizeWithin,
  type CardInput,
  type Connector,
  lookupWithin,
  type ProviderName,
} from '../providers/index.ts';
import type { CreatePaymentBody, SimulateRouteBody } from '../schemas/payments.ts';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { count } from '../metrics.ts';
import { readSecret } from '../secrets.ts';
import * as customers from '../store/customers.ts';
import type { CardOnFile } from '../store/customers.ts';
import type { TransactItem } from '../store/client.ts';
import { type Change, commit, type Operation } from '../store/commit.ts';
import {
  cardToCharge,
  cardToSave,
  dropDeclinedSave,
  forgetUsedCvc,
  keepChargedCard,
  methodAt,
  tokenKept,
  tokenKeptOnApproval,
} from './saved-cards.ts';
import { attemptReason, type PassedOver } from './attempt-reasons.ts';
import {
  AUTHENTICATION_DECLINE,
  authenticatesElsewhere,
  challengeOutcome,
  redirectAuthenticating,
  redirectsShopper,
} from './authentication-policy.ts';
import * as payments from '../store/payments.ts';
import * as paymentMethodsStore from '../store/payment-methods.ts';
import { updateSavedCard } from './card-updates.ts';
import type { PaymentAttempt, PaymentRecord, RoutingDecision, StoredPayment } from '../store/payments.ts';
import * as velocityStore from '../store/velocity.ts';
import * as routingSetup from '../store/routing-setup.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { binOf, cardBrand, cardFingerprint, type StoredCard } from './cards.ts';
import { checkReturnUrl } from './checkout.ts';
import { clock, isoNow } from './clock.ts';
import {
  activeConnectors,
  connectorForOperation,
  connectorForTarget,
  describeTarget,
  modeOf,
  providerFees,
  type RouteTarget,
  routeTargets,
} from './connectors.ts';
import {
  BadRequest,
  CaptureFailed,
  Declined,
  OperationInProgress,
  OutcomeUnknown,
  ProviderRefused,
  ProvidersUnavailable,
  ResourceMissing,
} from './errors.ts';
import { capturePayment } from './payment-lifecycle.ts';
import { newEvent } from './events.ts';
import { type ChangeSource, historyEntry } from './timeline-entries.ts';
import * as inbound from '../store/inbound.ts';
import { freshOrigin, idFor, newId, type Origin } from './ids.ts';
import { threeDSecureLinks } from './signed-links.ts';
import { leaseFromNow, runOperation, takeOverOperation } from './operations.ts';
import * as ledger from '../store/ledger.ts';
import type { AttemptOutcome } from '../store/ledger.ts';
import { assessRisk, RISK_DECLINE_THRESHOLD } from './risk.ts';
import { forcedProvider, planRoute, type RoutePlan } from './routing.ts';
import { chance, countAttempt, meanApprovedAmount, recentStats, roundRobinTurn } from './routing-context.ts';
import { activeRules, type PaymentFacts } from './routing-rules.ts';
import { ATTEMPT, PAYMENT, transition } from './state-machines.ts';
import type { Owner } from '../store/keys.ts';
import { annotate } from '../tracer.ts';

export type CreatePaymentInput = v.InferOutput<typeof CreatePaymentBody>;
export type SimulateRouteInput = v.InferOutput<typeof SimulateRouteBody>;

/** A payment as the API shows it. */
export const paymentView = (p: PaymentRecord) => ({
  id: p.id,
  object: 'payment' as const,
  status: p.status,
  amount: p.amount,
  currency: p.currency,
  amount_captured: p.amount_captured,
  amount_refunded: p.amount_refunded,
  provider: p.provider,
  connector_id: p.connector_id ?? null,
  routing_decision: p.routing_decision,
  risk_score: p.risk_score,
  decline_code: p.decline_code,
  attempts: (p.attempts ?? []).map((a) => ({
    id: a.id,
    status: a.status,
    provider: a.provider,
    connector_id: a.connector_id,
    decline_code: a.decline_code,
    latency_ms: a.latency_ms,
    created_at: a.created_at,
  })),
  payment_method: {
    id: p.payment_method_id ?? null,
    type: 'card' as const,
    card: { brand: p.card.brand, last4: p.card.last4, exp_month: p.card.exp_month, exp_year: p.card.exp_year },
  },
  customer_id: p.customer_id,
  next_action: p.status === 'requires_action' ? (p.next_action ?? null) : null,
  three_d_secure: p.three_d_secure ?? null,
  capture_method: p.capture_method ?? ('manual' as const),
  customer: p.customer,
  description: p.description,
  metadata: p.metadata,
  livemode: p.livemode,
  created_at: p.created_at,
});
export type PaymentView = ReturnType<typeof paymentView>;

const factsOf = (input: SimulateRouteInput, cardNumber: string | undefined, customerEmail: string | undefined): PaymentFacts => ({
  currency: input.currency,
  amount: input.amount,
  card_brand: cardNumber ? cardBrand(cardNumber) : undefined,
  card_bin: (cardNumber && binOf(cardNumber, 8)) || undefined,
  customer_email_domain: customerEmail?.split('@')[1],
  metadata: input.metadata ?? {},
});

/**
 * The route: providers ordered by the strategy, then each provider's connector accounts of the payment's mode (or,
 * in test mode, its sandbox). Live mode with no eligible account answers 400 `connector_missing`.
 */
async function plan(
  merchant: Merchant,
  input: SimulateRouteInput,
  cardNumber: string | undefined,
  {
    simulation = false,
    customerEmail = Promise.resolve(input.customer?.email),
  }: { simulation?: boolean; customerEmail?: Promise<string | undefined> } = {},
) {
  const owner = ownerOf(merchant);
  // a forced provider consults no rule, so its payment reads none; the customer's e-mail (read beside) feeds the rules
  const [setup, stats, email] = await Promise.all([
    routingSetup.readRoutingSetup(owner, { rules: !forcedProvider(input.routing) }),
    recentStats(owner),
    customerEmail,
  ]);
  const rules = activeRules(setup.rules);
  const accounts = activeConnectors(setup.connectors);
  const providers = planRoute({
    choice: input.routing,
    facts: factsOf(input, cardNumber, email),
    rules,
    stats: stats.providers,
    random: chance.random,
    sequence: input.routing === 'round_robin' ? roundRobinTurn(merchant.id, !simulation) : 0,
    fees: providerFees(accounts, modeOf(merchant), input.amount),
  });
  const targets = routeTargets(accounts, modeOf(merchant), providers.candidates, {
    stats: stats.connectors,
    amount: input.amount,
    cheapestFirst: providers.strategy === 'lowest_cost',
  });
  if (targets.length === 0) {
    const wanted = providers.candidates.join(', ');
    throw new BadRequest(
      'connector_missing',
      'routing',
      `no active ${modeOf(merchant)} connector account for ${wanted}; connect one with POST /api/connectors`,
    );
  }
  return { route: { ...providers, targets }, stats };
}

export type Route = RoutePlan & { targets: RouteTarget[] };

/** The decision a payment would get, charging nothing and counting nothing. */
export async function simulateRoute(merchant: Merchant, input: SimulateRouteInput) {
  const started = performance.now();
  const { route } = await plan(merchant, input, input.payment_method?.card?.number, {
    simulation: true,
    customerEmail: linkedCustomer(merchant, input).then((customer) => {
      if (input.customer_id !== undefined && !customer)
        throw new ResourceMissing('customer_id', `no customer ${input.customer_id} in ${modeOf(merchant)} mode`);
      return customer?.email ?? input.customer?.email;
    }),
  });
  const routed = route.authenticationRequiredBy ? redirectAuthenticating(route, route.authenticationRequiredBy) : route;
  return {
    object: 'routing_simulation' as const,
    provider: routed.targets[0]?.provider ?? null,
    routing_decision: decision(routed, routed.targets[0], started),
  };
}

/** What a payment keeps of its card: brand, last4, BIN (from 15 digits), expiry and an HMAC fingerprint (card velocity, across merchants). */
export const storedCardOf = async (card: Pick<CardInput, 'number' | 'exp_month' | 'exp_year'>): Promise<StoredCard> => ({
  brand: cardBrand(card.number),
  last4: card.number.slice(-4),
  bin: binOf(card.number),
  exp_month: card.exp_month,
  exp_year: card.exp_year,
  fingerprint: cardFingerprint(await readSecret('fingerprints'), card.number),
});

/** An off-session charge of a saved card (a renewal) is routed as a create is (smart), with its decision. */
export async function routeSavedCard(merchant: Merchant, charge: { amount: number; currency: string }, cardNumber: string) {
  const started = performance.now();
  const { route } = await plan(merchant, { ...charge, routing: 'smart' }, cardNumber);
  const describe = (target: RouteTarget, softFailures: readonly SoftFailureSeen[]) =>
    decision(withFailover(route, softFailures, target), target, started);
  return { targets: route.targets, describe };
}

/** A soft failure on the way: the target that answered it, and why (`authenticate`: the shopper must authenticate elsewhere). */
interface SoftFailureSeen {
  target: RouteTarget;
  reason: string;
  authenticate?: true;
}

/** How a reason names a target: by provider alone when the route has no connector account, else by account. */
const nameIn = (route: Route) => (route.targets.some((t) => t.connectorId) ? describeTarget : (t: RouteTarget) => t.provider);

/** The decision as the payment shows it; with connector accounts, the reason names the one chosen and the order tried. */
function decision(route: Route, chosen: RouteTarget | undefined, started: number): RoutingDecision {
  const accounts = route.targets.some((t) => t.connectorId)
    ? ` Connector accounts in order: ${route.targets.map(describeTarget).join(' → ')}${chosen ? `; sent through ${describeTarget(chosen)}` : ''}.`
    : '';
  return {
    strategy: route.strategy,
    reason: `${route.reason}${accounts}`,
    alternatives_considered: route.candidates.filter((p) => p !== chosen?.provider),
    latency_ms: Math.round(performance.now() - started),
  };
}

/**
 * Scores the risk, routes, and authorizes at the first provider that answers, failing over on soft failures. The card
 * number and CVC live only in this call's memory (the payment keeps brand, last4, BIN, expiry and an HMAC fingerprint).
 * Declines are stored `failed` and answered 402; when every provider fails softly, 500. The payment is stored
 * `processing` with its attempt's operation, whose id is the provider's idempotency key, before any provider is asked:
 * a retry or the reconciler resolves what a dead run left with the provider before anything is tried again.
 */
/** `admitted`: the rate limit's verdict, counted while the reads run; nothing but the card's velocity is written before it. */
export async function createPayment(
  merchant: Merchant,
  input: CreatePaymentInput,
  origin: Origin = freshOrigin(),
  admitted = Promise.resolve(),
  baseUrl = config.PUBLIC_API_URL ?? '',
) {
  if (input.three_d_secure === 'required' && input.return_url === undefined) {
    throw new BadRequest('parameter_missing', 'return_url', 'return_url is required with three_d_secure: required (where the shopper comes back to)');
  }
  if (input.return_url !== undefined) await checkReturnUrl(merchant, input.return_url, baseUrl);
  const started = performance.now();
  const charged =
    input.setup_future_usage && typeof input.payment_method !== 'string'
      ? await cardToSave(merchant, input.payment_method.card, input.customer_id, origin)
      : await cardToCharge(merchant, input.payment_method, input.customer_id);
  const { card, paymentMethod } = charged;
  // A saved card's customer is the payment's, unless the create names one.
  if (paymentMethod?.customer_id && input.customer_id === undefined && input.customer === undefined)
    input = { ...input, customer_id: paymentMethod.customer_id };
  // One instant for the id (a ULID, which orders lists) and created_at, however long routing and the provider take.
  const createdAt = origin.at;
  const id = idFor('payment', origin);
  annotate({ payment: id });
  if (input.customer_id !== undefined && input.customer !== undefined) {
    throw new BadRequest('parameter_invalid', 'customer_id', 'give customer_id or customer, not both');
  }
  const stored = await storedCardOf(card);
  // The reads (and the velocity count) a decision needs, at once and beside the rate limit's count: one round trip of
  // latency instead of four. A refused request answers 429 whatever they found, and takes its velocity count back.
  const countedAt = clock.now();
  const velocity = velocityStore.countCardAttempt(stored.fingerprint, countedAt);
  // The customer: named by id (its e-mail then feeds routing and risk), or found by the e-mail given, if any.
  const linked = linkedCustomer(merchant, input);
  const decided = Promise.all([
    plan(merchant, { ...input, payment_method: undefined }, card.number, { customerEmail: linked.then((c) => c?.email ?? input.customer?.email) }),
    linked,
    velocity,
  ]);
  decided.catch(() => undefined);
  const uncounted = async (refusal: unknown) => {
    await velocity.then(() => velocityStore.uncountCardAttempt(stored.fingerprint, countedAt)).catch(() => undefined);
    throw refusal;
  };
  await admitted.catch(uncounted);
  // a publishable key's payment method is kept from its first payment on (only such a one writes here)
  await keepChargedCard(merchant, charged).catch(uncounted);
  const [{ route: planned, stats }, customer, cardAttemptsThisHour] = await decided;
  // Required by the create or by the rule that matched: as if the create asked (docs/api.md "3-D Secure").
  const requiredBy = input.three_d_secure === 'required' ? 'three_d_secure: "required"' : planned.authenticationRequiredBy;
  const customerMissing = input.customer_id !== undefined && !customer;
  if (customerMissing || (requiredBy && !input.return_url)) {
    await velocityStore.uncountCardAttempt(stored.fingerprint, countedAt).catch(() => undefined);
    if (customerMissing) throw new ResourceMissing('customer_id', `no customer ${input.customer_id} in ${modeOf(merchant)} mode`);
    throw new BadRequest(
      'parameter_missing',
      'return_url',
      `return_url is required: ${requiredBy} requires 3-D Secure (where the shopper comes back to)`,
    );
  }
  const route = requiredBy ? redirectAuthenticating(planned, requiredBy) : planned;
  const customerEmail = customer?.email ?? input.customer?.email;
  const risk = assessRisk({
    cardNumber: card.number,
    currency: input.currency,
    amount: input.amount,
    customerEmail,
    cardAttemptsThisHour,
    merchantMeanAmount: meanApprovedAmount(stats, input.currency),
  });

  const base = payments.newPaymentRecord({
    id,
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    amount: input.amount,
    currency: input.currency,
    card: stored,
    ...(paymentMethod ? { payment_method_id: paymentMethod.id } : {}),
    ...(input.return_url ? { return_url: input.return_url } : {}),
    ...(requiredBy ? { three_d_secure_mode: 'required' as const } : {}),
    customer: input.customer ?? (customer?.email ? { email: customer.email } : null),
    customer_email: customerEmail ?? null,
    customer_id: customer?.id ?? null,
    // stored only when automatic: a manual create's item stays as it was (same size, same write units)
    ...(input.capture_method === 'automatic' ? { capture_method: 'automatic' as const } : {}),
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    risk_score: risk.score,
    created_at: new Date(createdAt).toISOString(),
  });

  if (risk.score >= RISK_DECLINE_THRESHOLD) {
    const declined = { ...base, decline_code: 'fraudulent' };
    const event = newEvent(ownerOf(merchant), 'payment.failed', paymentView(declined));
    if (
      (await commit({
        writes: [{ create: payments.paymentTarget(declined), item: declined }],
        events: [event],
        counters: [...ledger.authorizationCounters(declined, []), ...payments.paymentCountChange(declined, null, 'failed')],
      })) === 'refused'
    ) {
      return answerRetried(merchant, input, origin, baseUrl);
    }
    await count('Declines', { mode: modeOf(declined), provider: 'risk_engine', decline_code: 'fraudulent' });
    return answerFor(declined);
  }

  // A saved card's CVC is forgotten as soon as a provider has answered (beside the commit), at the latest before the
  // create answers; its failure still fails the create, through the `finally` below.
  let forgetting: Promise<void> | undefined;
  const forget = () => {
    if (!forgetting) (forgetting = forgetUsedCvc(merchant, charged)).catch(() => undefined);
    return forgetting;
  };
  const payment = await authorizePayment(
    base,
    route.targets,
    (target) => methodAt(charged, target),
    (target, softFailures) => decision(withFailover(route, softFailures, target), target, started),
    {
      onFile: customer?.card_on_file,
      kept: (target, result) => tokenKept(charged, target, result),
      answered: forget,
      ...(input.return_url ? { authentication: await shopperAuthentication(id, input.return_url, requiredBy !== undefined, baseUrl) } : {}),
    },
  ).finally(forget);
  await dropDeclinedSave(merchant, charged, payment);
  if (!payment) return answerRetried(merchant, input, origin, baseUrl);
  const answer = answerFor(payment);
  return payment.capture_method === 'automatic' && payment.status === 'succeeded' ? captureAtOnce(payment) : answer;
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

/** Where the automatic capture's operation id comes from: the payment, so every run that carries it out asks once. */
const automaticCaptureOrigin = (payment: PaymentRecord): Origin => ({ at: Date.parse(payment.created_at), seed: `${payment.id}#automatic-capture` });

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

/** An automatic payment's capture, right after its authorization: the operation its authorization left, carried out. */
/**
 * An automatic payment the shopper's return authorized (3-D Secure) is captured then, as a create would have; a
 * capture that fails here is left to the reconciler (the shopper is sent back to the merchant all the same).
 */
export async function captureAuthenticated(paymentId: string): Promise<void> {
  const payment = await payments.loadPayment(paymentId);
  if (payment?.status !== 'succeeded' || payment.capture_method !== 'automatic') return;
  await captureAtOnce(payment as PaymentRecord).catch((error: unknown) =>
    logger.warn('The automatic capture after 3-D Secure was left to the reconciler', { payment_id: paymentId, error: (error as Error).message }),
  );
}

async function captureAtOnce(payment: PaymentRecord): Promise<PaymentView> {
  const merchant: Merchant = { id: payment.merchant_id, livemode: payment.livemode, credential: 'api_key' };
  try {
    return await capturePayment(merchant, payment.id, {}, automaticCaptureOrigin(payment));
  } catch (error) {
    // An error, not a 200 `succeeded` (read as paid by many): the money is held, not taken, and the error names the
    // payment. A retry with the same key carries out the same capture.
    if (error instanceof ProviderRefused || error instanceof OutcomeUnknown) throw new CaptureFailed(payment.id, error);
    throw error;
  }
}

/** The customer the create links: by `customer_id` (undefined when not the merchant's, of this mode), else by e-mail. */
async function linkedCustomer(
  merchant: Merchant,
  input: Pick<CreatePaymentInput, 'customer_id' | 'customer'>,
): Promise<(Pick<customers.CustomerRecord, 'id' | 'card_on_file'> & { email?: string }) | undefined> {
  if (input.customer_id !== undefined) return customers.getCustomer(ownerOf(merchant), input.customer_id);
  const email = input.customer?.email;
  return email ? customers.findCustomerByEmail(ownerOf(merchant), email) : undefined;
}

/**
 * The payment id is taken: the request is a retry (same Idempotency-Key) and its first run stored the payment. What
 * that run left is resolved and answered; if it turned out to hold nothing (removed), the create runs again. Only a
 * retry pays for this read: a first run learns it from the refused begin, never reads first.
 */
async function answerRetried(merchant: Merchant, input: CreatePaymentInput, origin: Origin, baseUrl: string): Promise<PaymentView> {
  const earlier = await payments.getStoredPayment(ownerOf(merchant), idFor('payment', origin));
  if (!earlier) throw new OperationInProgress(1);
  if ((await resolveAuthorization(earlier, 'request')) === 'absent') return createPayment(merchant, input, origin, undefined, baseUrl);
  const answer = await answerOf(ownerOf(merchant), earlier.id);
  // Authorized but not captured yet (the first run stopped between the two): the capture runs now, once.
  return answer.status === 'succeeded' && earlier.capture_method === 'automatic' ? captureAtOnce(earlier as PaymentRecord) : answer;
}

/** The create's answer: the payment (200) or its decline (402). */
function answerFor(payment: PaymentRecord): PaymentView {
  if (payment.status === 'failed') throw new Declined(payment.decline_code ?? 'generic_decline', payment.id);
  return paymentView(payment);
}

/**
 * Authorizes `base` at the first of `candidates` that answers (failing over on soft failures), each attempt under
 * its own operation, and records the outcome: the payment succeeded, or failed with its decline code. Undefined when
 * a payment with `base.id` is already stored (nothing was asked). Throws OutcomeUnknown (recorded failed, reversed
 * later) or ProvidersUnavailable (nothing held, nothing kept). `onFile`: the customer's card on file as read before.
 */
export async function authorizePayment(
  base: PaymentRecord,
  targets: readonly RouteTarget[],
  methodAt: (target: RouteTarget) => Pick<AuthorizeRequest, 'card' | 'providerToken' | 'initiator'>,
  describe: (target: RouteTarget, softFailures: readonly SoftFailureSeen[]) => RoutingDecision,
  {
    onFile,
    kept = () => [],
    answered = () => undefined,
    authentication,
    counted = () => [],
    failoverOnDecline = () => false,
    recorded = () => [],
    why,
  }: {
    onFile?: CardOnFile | null;
    kept?: (target: RouteTarget, result: AuthorizeResult) => TransactItem[];
    /** called as each attempt's answer is recorded, before its commit */
    answered?: () => void;
    /** the shopper is present and may authenticate (3-D Secure) */
    authentication?: ShopperAuthentication;
    /** counter cells the attempt (by index) writes in its own transaction: refused, it is not made */
    counted?: (index: number) => TransactItem[];
    /** a decline with this code fails over to the next target too (a renewal's soft decline) */
    failoverOnDecline?: (declineCode: string) => boolean;
    /** items written with the payment's outcome (a renewal's attempts on its invoice) */
    recorded?: (payment: PaymentRecord) => TransactItem[];
    /** what made an off-session charge run: each attempt then keeps why it was made, there */
    why?: string;
  } = {},
): Promise<PaymentRecord | undefined> {
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
        ...(why ? { reason: attemptReason(target, passedOver.at(-1), method, why) } : {}),
      };
      // The first attempt creates the payment `processing` with its operation; a failover's replaces the one before.
      const begin: Change = op
        ? {
            writes: [{ move: payments.paymentTarget(base), operation: { replace: op.id, with: next }, set: { attempts: [...trail, pending] } }],
            counters: counted(index),
          }
        : {
            writes: [{ create: payments.paymentTarget(base), item: { ...base, status: 'processing', attempts: [pending] }, operation: next }],
            counters: counted(index),
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
            status: transition('attempt', ATTEMPT, attemptMoveOf(result), pending.status).to,
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
          const declinedSoftly = result.outcome === 'declined' && failoverOnDecline(result.declineCode) && index < targets.length - 1;
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
            // The shopper must authenticate: no failover from here on (DECISIONS "3-D Secure").
            const waiting = { ...base, provider, connector_id, routing_decision, attempts: trail, provider_reference: result.reference };
            return awaitShopper(waiting, attempt, result.action, authentication!);
          }
          if (result.outcome === 'unknown') {
            // Neither answered nor found: the attempt may hold an authorization nobody can confirm now. The payment is
            // recorded failed with the operation still on it; the reconciler reverses whatever the provider holds.
            const failed = { ...base, provider, connector_id, routing_decision, decline_code: 'processing_error', attempts: trail };
            await finishCreate(failed, attempt, attempts, { keepOperation: true, also: recorded(failed) });
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
          await finishCreate(payment, attempt, attempts, { onFile, also: [...kept(target, result), ...recorded(payment)] });
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

/** Where the shopper comes back to (the provider's return, then the merchant's), and whether to ask for authentication. */
export interface ShopperAuthentication {
  providerReturnUrl: string;
  nextActionUrl: string;
  returnUrl: string;
  required: boolean;
}

/** The create's authentication links: our hand-off and return pages (signed, for the shopper's hour), and the merchant's return. */
async function shopperAuthentication(paymentId: string, returnUrl: string, required: boolean, baseUrl: string): Promise<ShopperAuthentication> {
  const links = await threeDSecureLinks(baseUrl, paymentId, clock.now() + AUTHENTICATION_WINDOW_MS);
  return { nextActionUrl: links.handOff, providerReturnUrl: links.return, returnUrl, required };
}

/** How long a shopper may take to authenticate before the reconciler cancels the payment (DECISIONS "3-D Secure"). */
export const AUTHENTICATION_WINDOW_MS = 60 * 60_000;

/**
 * The issuer asks the shopper to authenticate: the payment waits `requires_action`, its attempt's operation becomes
 * the shopper's authentication (leased for the hour they have), and the create answers the next action.
 */
async function awaitShopper(payment: PaymentRecord, attempt: Operation, action: ShopperAction, authentication: ShopperAuthentication) {
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
        move: payments.paymentTarget(waiting),
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

/** An attempt as business metrics: its outcome, a decline's code, a failover to the next target, an unknown outcome. */
async function countAttemptOutcome(payment: PaymentRecord, provider: string, result: AuthorizeResult, more: boolean): Promise<void> {
  const mode = modeOf(payment);
  const outcome = result.outcome === 'approved' ? 'approved' : result.outcome === 'soft_failure' ? 'failed' : result.outcome;
  await count('Authorizations', { mode, provider, outcome });
  if (result.outcome === 'declined') await count('Declines', { mode, provider, decline_code: result.declineCode });
  if (result.outcome === 'unknown') await count('UnknownOutcomes', { mode, provider, operation: 'authorize' });
  if (result.outcome === 'soft_failure' && more) await count('Failovers', { mode, provider });
}

/** An attempt's move (ATTEMPT) from its connector's answer (a soft failure after a reversal: its key is closed). */
const attemptMoveOf = (result: AuthorizeResult): keyof typeof ATTEMPT =>
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

/** The payment's attempts with the one of `id` moved along ATTEMPT. */
const finishAttempt = (p: StoredPayment, id: string, move: keyof typeof ATTEMPT, declineCode: string | null = null): PaymentAttempt[] =>
  (p.attempts ?? []).map((a) => (a.id === id ? { ...a, status: transition('attempt', ATTEMPT, move, a.status).to, decline_code: declineCode } : a));

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

/** Records the create's outcome (succeeded or failed) with its event, counters and card on file; the attempt's operation ends. */
async function finishCreate(
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
  const move = after ? (succeeded ? 'authenticate' : 'failAuthentication') : succeeded ? 'authorize' : 'decline';
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
        move: payments.paymentTarget(payment),
        transition: PAYMENT[move],
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
      begin: { writes: [{ move: target, inStates: ['requires_action'], operation: { replace: waiting.id, with: asking } }] },
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
      await commit({ writes: [{ move: target, operation: { replace: op.id, with: stillWaiting } }] });
    },
  });
}

/**
 * A return (or the reconciler) is asking the provider about the shopper's authentication: the payment's operation is
 * not the shopper's own (its attempt's), and its lease runs. Nothing else takes it over meanwhile.
 */
export const askingProvider = (payment: StoredPayment): boolean =>
  payment.op?.kind === 'authenticate' && !(payment.attempts ?? []).some((a) => a.id === payment.op!.id) && payment.op.lease_until >= clock.now();

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
const sourceOf = (payment: PaymentRecord): ChangeSource => (payment.routing_decision?.strategy === 'card_on_file' ? 'schedule' : 'api');

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
      writes: [{ move: payments.paymentTarget(payment), operation: { finish: op.id }, set: { attempts: finishAttempt(payment, op.id, 'reverse') } }],
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

/** The create's answer from what is stored: the payment (200), its decline (402), or an outcome still unknown (500). */
async function answerOf(owner: Owner, id: string) {
  const payment = await payments.getStoredPayment(owner, id);
  if (!payment || payment.status === 'processing') throw new OperationInProgress(1);
  if (payment.status === 'failed' && payment.op) throw new OutcomeUnknown(id);
  return answerFor(payment as PaymentRecord);
}

/** When the first choices failed softly, the decision says so: the reason names them and why it moved on. */
function withFailover(route: Route, softFailures: readonly SoftFailureSeen[], target: RouteTarget): Route {
  if (softFailures.length === 0) return route;
  const name = nameIn(route);
  const failed = softFailures.map((f) => `${name(f.target)} answered ${f.reason}`).join(' and ');
  const authenticating = softFailures.some((f) => f.authenticate) ? ', with 3-D Secure' : '';
  return { ...route, reason: `${route.reason} Then ${failed}, so the payment failed over to ${name(target)}${authenticating}.` };
}
