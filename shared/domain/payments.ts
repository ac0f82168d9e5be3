import type * as v from 'valibot';
import { authorizeWithin, connectorFor, type ProviderName } from '../providers/index.ts';
import type { CreatePaymentBody, SimulateRouteBody } from '../schemas/payments.ts';
import { publishEvents } from '../events/queue.ts';
import { appSecret } from '../secrets.ts';
import { cardOnFileUpdate, findCustomerIdByEmail } from '../store/customers.ts';
import { type PaymentRecord, putPayment, type RoutingDecision } from '../store/payments.ts';
import { countCardAttempt } from '../store/velocity.ts';
import type { Merchant } from './auth.ts';
import { cardBrand, cardFingerprint, type StoredCard } from './cards.ts';
import { clock } from './clock.ts';
import { Declined, ProvidersUnavailable } from './errors.ts';
import { newEvent } from './events.ts';
import { newId } from './ids.ts';
import { type AttemptOutcome, authorizationCounters } from './ledger.ts';
import { assessRisk, RISK_DECLINE_THRESHOLD } from './risk.ts';
import { planRoute, type RoutePlan } from './routing.ts';
import { chance, countAttempt, meanApprovedAmount, recentStats, roundRobinTurn } from './routing-context.ts';
import { activeRules, type PaymentFacts } from './routing-rules.ts';

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
  routing_decision: p.routing_decision,
  risk_score: p.risk_score,
  decline_code: p.decline_code,
  payment_method: { type: 'card' as const, card: { brand: p.card.brand, last4: p.card.last4, exp_month: p.card.exp_month, exp_year: p.card.exp_year } },
  customer_id: p.customer_id,
  customer: p.customer,
  description: p.description,
  metadata: p.metadata,
  livemode: p.livemode,
  created_at: p.created_at,
});

const factsOf = (input: SimulateRouteInput, cardNumber: string | undefined): PaymentFacts => ({
  currency: input.currency,
  amount: input.amount,
  card_brand: cardNumber ? cardBrand(cardNumber) : undefined,
  card_bin: cardNumber?.slice(0, 8),
  customer_email_domain: input.customer?.email?.split('@')[1],
  metadata: input.metadata ?? {},
});

async function plan(merchantId: string, input: SimulateRouteInput, cardNumber: string | undefined, { simulation = false } = {}) {
  const [rules, stats] = await Promise.all([activeRules(merchantId), recentStats(merchantId)]);
  const route = planRoute({
    choice: input.routing,
    facts: factsOf(input, cardNumber),
    rules,
    stats: stats.providers,
    random: chance.random,
    sequence: input.routing === 'round_robin' ? roundRobinTurn(merchantId, !simulation) : 0,
  });
  return { route, stats };
}

/** The decision a payment would get, charging nothing and counting nothing. */
export async function simulateRoute(merchant: Merchant, input: SimulateRouteInput) {
  const started = performance.now();
  const { route } = await plan(merchant.id, input, input.payment_method?.card?.number, { simulation: true });
  return {
    object: 'routing_simulation' as const,
    provider: route.candidates[0] ?? null,
    routing_decision: decision(route, route.candidates[0], started),
  };
}

function decision(route: RoutePlan, chosen: ProviderName | undefined, started: number): RoutingDecision {
  return {
    strategy: route.strategy,
    reason: route.reason,
    alternatives_considered: route.candidates.filter((p) => p !== chosen),
    latency_ms: Math.round(performance.now() - started),
  };
}

/**
 * Scores the risk, routes, and authorizes at the first provider that answers, failing over on soft failures.
 * The card number and CVC live only in this call's memory: the payment keeps brand, last4, BIN, expiry and an
 * HMAC fingerprint. Declines are stored as `failed` and answered 402; when every provider fails softly, 500.
 */
export async function createPayment(merchant: Merchant, input: CreatePaymentInput) {
  const started = performance.now();
  const { card } = input.payment_method;
  // One instant for the id (a ULID, which orders lists) and created_at, however long routing and the provider take.
  const createdAt = clock.now();
  const id = newId('payment', createdAt);
  const customerEmail = input.customer?.email;
  const stored: StoredCard = {
    brand: cardBrand(card.number),
    last4: card.number.slice(-4),
    bin: card.number.slice(0, 6),
    exp_month: card.exp_month,
    exp_year: card.exp_year,
    fingerprint: cardFingerprint(await appSecret(), card.number),
  };
  // The reads (and the velocity count) a decision needs, at once: one round trip of latency instead of three.
  const [{ route, stats }, customerId, cardAttemptsThisHour] = await Promise.all([
    plan(merchant.id, input, card.number),
    customerEmail ? findCustomerIdByEmail(merchant.id, customerEmail) : Promise.resolve(undefined),
    countCardAttempt(stored.fingerprint, clock.now()),
  ]);
  const risk = assessRisk({
    cardNumber: card.number,
    currency: input.currency,
    amount: input.amount,
    customerEmail,
    cardAttemptsThisHour,
    merchantMeanAmount: meanApprovedAmount(stats, input.currency),
  });

  const now = new Date(createdAt).toISOString();
  const base: PaymentRecord = {
    id,
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    status: 'failed',
    amount: input.amount,
    currency: input.currency,
    amount_captured: 0,
    amount_refunded: 0,
    provider: null,
    provider_reference: null,
    provider_token: null,
    card: stored,
    customer: input.customer ?? null,
    customer_email: customerEmail ?? null,
    customer_id: customerId ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    routing_decision: null,
    risk_score: risk.score,
    decline_code: null,
    created_at: now,
    updated_at: now,
  };

  if (risk.score >= RISK_DECLINE_THRESHOLD) {
    await recordPayment({ ...base, decline_code: 'fraudulent' }, []);
    throw new Declined('fraudulent', id);
  }

  const tried: Promise<void>[] = [];
  const attempts: AttemptOutcome[] = [];
  const softFailures: string[] = [];
  try {
    for (const [index, provider] of route.candidates.entries()) {
      const result = await authorizeWithin(connectorFor(provider, merchant.livemode), {
        paymentId: id,
        amount: input.amount,
        currency: input.currency,
        card,
        attempt: index + 1,
      });
      attempts.push({ provider, approved: result.outcome === 'approved', latencyMs: result.latencyMs });
      tried.push(countAttempt(merchant.id, provider, { approved: result.outcome === 'approved', latencyMs: result.latencyMs, amount: input.amount, currency: input.currency }));
      if (result.outcome === 'soft_failure') {
        softFailures.push(`${provider} answered ${result.reason}`);
        continue;
      }
      const routing_decision = decision(withFailover(route, softFailures, provider), provider, started);
      if (result.outcome === 'declined') {
        await recordPayment({ ...base, provider, routing_decision, decline_code: result.declineCode }, attempts);
        throw new Declined(result.declineCode, id);
      }
      const payment: PaymentRecord = {
        ...base,
        status: 'succeeded',
        provider,
        provider_reference: result.reference,
        provider_token: result.providerToken,
        routing_decision,
      };
      await recordPayment(payment, attempts);
      return paymentView(payment);
    }
  } finally {
    await Promise.all(tried);
  }
  throw new ProvidersUnavailable();
}

/**
 * Stores the payment with its `payment.succeeded` or `payment.failed` event, then hands the event on. A successful
 * payment of a known customer also becomes the customer's card on file (its provider token), in the same transaction.
 */
export async function recordPayment(payment: PaymentRecord, attempts: readonly AttemptOutcome[]): Promise<void> {
  const succeeded = payment.status === 'succeeded';
  const event = newEvent(payment.merchant_id, succeeded ? 'payment.succeeded' : 'payment.failed', paymentView(payment));
  const { card } = payment;
  const alongside =
    succeeded && payment.customer_id && payment.provider && payment.provider_token
      ? [
          cardOnFileUpdate(payment.customer_id, {
            provider: payment.provider,
            provider_token: payment.provider_token,
            brand: card.brand,
            last4: card.last4,
            exp_month: card.exp_month,
            exp_year: card.exp_year,
          }),
        ]
      : [];
  await putPayment(payment, event, [...alongside, ...authorizationCounters(payment, attempts)]);
  await publishEvents([event]);
}

/** When the first choices failed softly, the decision says so: the reason names them and why it moved on. */
function withFailover(route: RoutePlan, softFailures: readonly string[], provider: ProviderName): RoutePlan {
  if (softFailures.length === 0) return route;
  return { ...route, reason: `${route.reason} Then ${softFailures.join(' and ')}, so the payment failed over to ${provider}.` };
}
