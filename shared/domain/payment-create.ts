import type * as v from 'valibot';
import type { CardInput } from '../providers/index.ts';
import type { CreatePaymentBody } from '../schemas/payments.ts';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { count } from '../metrics.ts';
import { readSecret } from '../secrets.ts';
import { commit } from '../store/commit.ts';
import type { Owner } from '../model/targets.ts';
import * as ledger from '../store/ledger.ts';
import * as payments from '../store/payments.ts';
import type { PaymentRecord } from '../store/payments.ts';
import * as velocityStore from '../store/velocity.ts';
import { annotate } from '../tracer.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { redirectAuthenticating } from './authentication-policy.ts';
import { authorizePayment } from './authorization.ts';
import { automaticCaptureOrigin, resolveAuthorization } from './authorization-outcomes.ts';
import { binOf, cardBrand, cardFingerprint, type StoredCard } from '../model/cards.ts';
import { checkReturnUrl } from './checkout.ts';
import { clock } from '../model/clock.ts';
import { modeOf } from './route-targets.ts';
import { BadRequest, CaptureFailed, Declined, OperationInProgress, OutcomeUnknown, ProviderRefused, ResourceMissing } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { capturePayment } from './payment-lifecycle.ts';
import { linkedCustomer, routed, routePayment } from './payment-routing.ts';
import { paymentView, type PaymentView } from './payment-view.ts';
import { assessRisk, RISK_DECLINE_THRESHOLD } from './risk.ts';
import { meanApprovedAmount } from './routing-context.ts';
import { cardToCharge, cardToSave, dropDeclinedSave, forgetUsedCvc, keepChargedCard, methodAt, tokenKept } from './saved-cards.ts';
import { shopperAuthentication } from './shopper-authentication.ts';

export type CreatePaymentInput = v.InferOutput<typeof CreatePaymentBody>;

/** What a payment keeps of its card: brand, last4, BIN (from 15 digits), expiry and an HMAC fingerprint (card velocity, across merchants). */
export const storedCardOf = async (card: Pick<CardInput, 'number' | 'exp_month' | 'exp_year'>): Promise<StoredCard> => ({
  brand: cardBrand(card.number),
  last4: card.number.slice(-4),
  bin: binOf(card.number),
  exp_month: card.exp_month,
  exp_year: card.exp_year,
  fingerprint: cardFingerprint(await readSecret('fingerprints'), card.number),
});

/**
 * Scores the risk, routes, and authorizes at the first provider that answers, failing over on soft failures. The card
 * number and CVC live only in this call's memory (the payment keeps brand, last4, BIN, expiry and an HMAC fingerprint).
 * Declines are stored `failed` and answered 402; when every provider fails softly, 500. The payment is stored
 * `processing` with its attempt's operation, whose id is the provider's idempotency key, before any provider is asked:
 * a retry or the reconciler resolves what a dead run left with the provider before anything is tried again.
 * `admitted`: the rate limit's verdict, counted while the reads run; nothing but the card's velocity is written before it.
 */
export async function createPayment(
  merchant: Merchant,
  input: CreatePaymentInput & { payment_link_id?: string },
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
    routePayment(merchant, { ...input, payment_method: undefined }, card.number, {
      customerEmail: linked.then((c) => c?.email ?? input.customer?.email),
    }),
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
    // set only by a payment link's page (the API's schema has no such field)
    ...(input.payment_link_id ? { payment_link_id: input.payment_link_id } : {}),
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
  const payment = await authorizePayment({
    payment: base,
    route: routed(route, started),
    methodAt: (target) => methodAt(charged, target),
    kept: (target, result) => tokenKept(charged, target, result),
    onFile: customer?.card_on_file,
    answered: forget,
    ...(input.return_url ? { authentication: await shopperAuthentication(id, input.return_url, requiredBy !== undefined, baseUrl) } : {}),
  }).finally(forget);
  await dropDeclinedSave(merchant, charged, payment);
  if (!payment) return answerRetried(merchant, input, origin, baseUrl);
  const answer = answerFor(payment);
  return payment.capture_method === 'automatic' && payment.status === 'succeeded' ? captureAtOnce(payment) : answer;
}

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

/** The create's answer from what is stored: the payment (200), its decline (402), or an outcome still unknown (500). */
async function answerOf(owner: Owner, id: string) {
  const payment = await payments.getStoredPayment(owner, id);
  if (!payment || payment.status === 'processing') throw new OperationInProgress(1);
  if (payment.status === 'failed' && payment.op) throw new OutcomeUnknown(id);
  return answerFor(payment as PaymentRecord);
}
