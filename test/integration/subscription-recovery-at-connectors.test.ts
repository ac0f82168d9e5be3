import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as recovery } from '../../functions/analytics/recovery.ts';
import { handler as timeline } from '../../functions/payments/timeline.ts';
import { clock } from '../../shared/model/clock.ts';
import { buildOpenApi } from '../../infra/openapi/document.ts';
import { config } from '../../shared/config.ts';
import { eventPayload } from '../../shared/model/events.ts';
import { chance } from '../../shared/domain/routing-context.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import type { FakeFault } from '../../infra/local/fakes/types.ts';
import { advanceClockTo, customerOnClock } from '../support/clocks.ts';
import { connect, receivedBy } from '../support/connected-accounts.ts';
import { startInboundGateway } from '../support/inbound.ts';
import { apiEvent, invokeHttp, type Json } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { cardBody, savedFromBrowser } from '../support/payment-methods.ts';
import { payloadChecker, responseChecker } from '../support/openapi.ts';
import { freshCard, payments } from '../support/payments.ts';
import { DUE, read, SUBSCRIBED_AT } from '../support/recovery.ts';
import { subscribe } from '../support/renewals.ts';
import { rules } from '../support/rules.ts';

/**
 * Subscription recovery across the merchant's own accounts (the provider fakes): a renewal the Stripe account
 * declines softly or cannot take is tried at the Adyen account in the same run, with the vaulted card, merchant-
 * initiated with the network transaction id of the card's first authorization; the rows of the retry policy that
 * need a provider's own answer (authentication_required, a code in no row). On a test clock: nothing waits.
 */
let fakes: ProviderFakes;
let inbound: Awaited<ReturnType<typeof startInboundGateway>>;
const realRandom = chance.random;
const realNow = clock.now;
beforeAll(async () => {
  [fakes, inbound] = await Promise.all([startProviderFakes(), startInboundGateway()]);
  Object.assign(config, fakes.env);
  chance.random = () => 0.99; // no exploration: the smart order after the rule's provider is the scores'
});
afterAll(async () => {
  chance.random = realRandom;
  await Promise.all([fakes.close(), inbound.close()]);
});

/**
 * A merchant with its Stripe and Adyen accounts, routing to `first` (only, when `only`); a customer on a clock who
 * saved a card and paid with it at Stripe; a monthly subscription on that card, due on DUE.
 */
async function subscribedAtConnectors(routing: { only: boolean }) {
  const { apiKey, merchantId } = await newMerchant();
  const stripe = await connect(apiKey, 'stripe', 'test');
  const adyen = await connect(apiKey, 'adyen', 'test');
  const { clockId, customerId } = await customerOnClock(apiKey, SUBSCRIBED_AT);
  const number = freshCard();
  const pm = (await savedFromBrowser(apiKey, cardBody(number), customerId)).body;
  const paid = await payments.create(apiKey, { amount: 2900, currency: 'eur', routing: 'stripe', payment_method: pm.id });
  expect(paid.body, paid.rawBody).toMatchObject({ status: 'succeeded', connector_id: stripe });
  const strategy = routing.only ? 'fixed' : 'smart';
  expect((await rules.create(apiKey, { name: 'Stripe first', provider: 'stripe', strategy, priority: 1, conditions: [] })).status).toBe(200);
  const body = { customer_id: customerId, payment_method: pm.id, plan: 'Pro', amount: 2900, currency: 'eur', interval: 'month' };
  const sub = (await subscribe(apiKey, body)).body;
  expect(sub.next_billing).toBe(DUE);
  const networkId = (await getPaymentMethod(testOwner(merchantId), pm.id))!.tokens[stripe]!.network_transaction_id!;
  return { apiKey, merchantId, clockId, stripe, adyen, number, networkId, subscriptionId: sub.id as string };
}

describe('a renewal the Stripe account fails is recovered at the Adyen account in the same run', () => {
  it.each([
    ['declines it softly (insufficient_funds)', { kind: 'decline', code: 'insufficient_funds' }, 'declined insufficient_funds (a soft decline)'],
    ['is down (503)', { kind: 'status', status: 503 }, 'was unavailable'],
  ] as [string, FakeFault, string][])('Stripe %s', async (_, fault, answered) => {
    // Prepare
    const { apiKey, merchantId, clockId, stripe, adyen, number, networkId, subscriptionId } = await subscribedAtConnectors({ only: false });
    fakes.stripe.inject('authorize', fault);

    // Act
    await advanceClockTo(apiKey, clockId, `${DUE}T12:00:00Z`);

    // Assess: renewed by one charge of two attempts; Adyen got the vault's card, no CVC, merchant-initiated with the id
    const [charge, ...others] = await read.charges(merchantId, subscriptionId);
    expect(others).toEqual([]);
    expect(charge).toMatchObject({ status: 'captured', connector_id: adyen });
    expect(charge!.attempts!.map((a) => [a.connector_id, a.status])).toEqual([
      [stripe, fault.kind === 'decline' ? 'declined' : 'failed'],
      [adyen, 'authorized'],
    ]);
    expect(receivedBy(fakes, 'adyen', charge!.attempts![1]!.id)).toMatchObject({
      numberLast4: number.slice(-4),
      cvc: false,
      body: { shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription', additionalData: { networkTxReference: networkId } },
    });
    const sub = await read.subscription(apiKey, subscriptionId);
    expect(sub).toMatchObject({ status: 'active', current_period_start: DUE, retry_reason: null });
    // recovered in the run that failed: counted failed and recovered, under the first decline's code
    clock.now = () => Date.parse(`${DUE}T18:00:00Z`);
    const report = await invokeHttp(recovery, apiEvent({ path: '/api/analytics/recovery', headers: bearer(apiKey), query: { period: '24h' } }));
    clock.now = realNow;
    const code = fault.kind === 'decline' ? 'insufficient_funds' : undefined;
    expect(report.body).toMatchObject(
      code ? { failed: 1, recovered: 1, recovered_revenue: 2900, by_decline_code: [{ decline_code: code }] } : { failed: 0 },
    );
    // the invoice lists both attempts, and why each was made there
    const invoice = await read.invoice(apiKey, sub.latest_invoice);
    expect(invoice).toMatchObject({ status: 'paid', payment_id: charge!.id, next_retry_at: null, retry_reason: null });
    expect(invoice.payment_attempts).toEqual([
      expect.objectContaining({
        payment_id: charge!.id,
        connector_id: stripe,
        reason: `renewal of the period from ${DUE}: tried first at stripe via ${stripe} (stripe test), the route's first choice, with that account's token for the card, merchant-initiated`,
      }),
      expect.objectContaining({
        payment_id: charge!.id,
        connector_id: adyen,
        status: 'authorized',
        reason:
          `stripe via ${stripe} (stripe test) ${answered}, so tried at adyen via ${adyen} (adyen test), with the vaulted card, ` +
          "merchant-initiated with the network transaction id of the card's first authorization",
      }),
    ]);
    // and so does the payment's timeline, as the schedule's doing
    const steps = (await invokeHttp(timeline, apiEvent({ method: 'GET', path: `/api/payments/${charge!.id}/timeline`, headers: bearer(apiKey) })))
      .body.data as Json[];
    const check = responseChecker(await buildOpenApi());
    expect(() => check('GET', '/api/invoices/{id}', 200, invoice)).not.toThrow();
    expect(() => check('GET', '/api/payments/{id}/timeline', 200, { object: 'timeline', payment_id: charge!.id, data: steps })).not.toThrow();
    expect(steps.filter((s) => s.object === 'attempt').map((s) => [s.source, s.reason])).toEqual(
      invoice.payment_attempts.map((a: Json) => ['schedule', a.reason]),
    );
  });
});

describe('the retry policy, on a provider’s own answers', () => {
  it('waits for the customer on authentication_required: no blind retry, past_due with the reason', async () => {
    // Prepare
    const { apiKey, merchantId, clockId, subscriptionId } = await subscribedAtConnectors({ only: true });
    fakes.stripe.inject('authorize', { kind: 'decline', code: 'authentication_required' });

    // Act: ten days on
    await advanceClockTo(apiKey, clockId, '2027-03-25T12:00:00Z');

    // Assess
    expect((await read.charges(merchantId, subscriptionId)).map((c) => c.decline_code)).toEqual(['authentication_required']);
    const sub = await read.subscription(apiKey, subscriptionId);
    expect(sub).toMatchObject({ status: 'past_due', retry_at: null, retry_reason: expect.stringContaining('the customer to authenticate') });
    expect(await read.invoice(apiKey, sub.latest_invoice)).toMatchObject({ status: 'draft', next_retry_at: null, retry_reason: sub.retry_reason });
  });

  it('treats a code in no row (do_not_honor) as soft: retried the next day, when the card pays', async () => {
    // Prepare
    const { apiKey, merchantId, clockId, subscriptionId } = await subscribedAtConnectors({ only: true });
    fakes.stripe.inject('authorize', { kind: 'decline', code: 'do_not_honor' });

    // Act 1
    await advanceClockTo(apiKey, clockId, `${DUE}T12:00:00Z`);
    // Assess 1
    const declined = await read.subscription(apiKey, subscriptionId);
    expect(declined).toMatchObject({
      status: 'past_due',
      retry_at: '2027-03-16',
      retry_reason: 'do_not_honor is not in the retry policy, so it is treated as a soft decline: retried on day 1 after the first try',
    });
    const [failed] = await read.events(merchantId, 'invoice.payment_failed');
    expect(failed.data.object).toMatchObject({ id: declined.latest_invoice, next_retry_at: '2027-03-16', retry_reason: declined.retry_reason });
    const document = await buildOpenApi();
    expect(() => payloadChecker(document)(eventPayload(failed))).not.toThrow();

    // Act 2
    await advanceClockTo(apiKey, clockId, '2027-03-16T12:00:00Z');
    // Assess 2: the retry paid the same invoice
    expect((await read.charges(merchantId, subscriptionId)).map((c) => c.status)).toEqual(['failed', 'captured']);
    expect(await read.subscription(apiKey, subscriptionId)).toMatchObject({ status: 'active', retry_at: null, retry_reason: null });
    const invoice = await read.invoice(apiKey, declined.latest_invoice);
    expect(invoice).toMatchObject({ status: 'paid', next_retry_at: null });
    expect(() => responseChecker(document)('GET', '/api/invoices/{id}', 200, invoice)).not.toThrow();
    expect(invoice.payment_attempts.map((a: Json) => a.reason)).toEqual([
      expect.stringMatching(/^renewal of the period from 2027-03-15: tried first at stripe/),
      expect.stringMatching(/^retry 1 of the period from 2027-03-15 \(do_not_honor is not in the retry policy/),
    ]);
  });
});

describe("a renewal waiting for an updated card, updated by the provider's card updater", () => {
  it("Stripe's payment_method.automatically_updated makes the next run charge the card again: renewed at Stripe", async () => {
    // Prepare: the card kept at Stripe expires before the renewal; Stripe's notifications reach the merchant's account
    const { apiKey, merchantId, clockId, stripe, subscriptionId } = await subscribedAtConnectors({ only: true });
    fakes.stripe.notifications.register(inbound.urlFor(stripe));
    fakes.stripe.inject('authorize', { kind: 'decline', code: 'expired_card' });
    await advanceClockTo(apiKey, clockId, `${DUE}T12:00:00Z`);
    const waiting = await read.subscription(apiKey, subscriptionId);
    const pm = (await getPaymentMethod(testOwner(merchantId), waiting.payment_method))!;
    const [, stripeMethod] = pm.tokens[stripe]!.token.split('|');

    // Act: the network tells Stripe the card's new expiry; the clock moves on two days
    fakes.stripe.updateCard(stripeMethod!, { exp_month: 6, exp_year: 2031 });
    await fakes.stripe.notifications.idle();
    await advanceClockTo(apiKey, clockId, '2027-03-17T12:00:00Z');

    // Assess: waited (no retry before the update), then charged once more at Stripe with its token, and renewed
    expect(waiting).toMatchObject({ status: 'past_due', retry_at: null, retry_reason: expect.stringMatching(/^expired_card: waiting/) });
    expect((await getPaymentMethod(testOwner(merchantId), pm.id))!.card).toMatchObject({ exp_month: 6, exp_year: 2031 });
    const charges = await read.charges(merchantId, subscriptionId);
    expect(charges.map((c) => [c.created_at.slice(0, 10), c.status, c.connector_id])).toEqual([
      [DUE, 'failed', stripe],
      ['2027-03-15', 'captured', stripe],
    ]);
    expect(await read.subscription(apiKey, subscriptionId)).toMatchObject({ status: 'active', current_period_start: DUE });
  });
});
