import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as updateCard } from '../../functions/test-helpers/payment-method-update.ts';
import { config } from '../../shared/config.ts';
import { listEvents } from '../../shared/store/events.ts';
import type { Owner } from '../../shared/model/targets.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { connect, merchantIn, receivedBy } from '../support/connected-accounts.ts';
import { startInboundGateway } from '../support/inbound.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer } from '../support/merchant.ts';
import { cardBody, paymentMethods } from '../support/payment-methods.ts';
import { freshCard, payments } from '../support/payments.ts';

/**
 * The card networks' updater, played in test mode by `POST /api/test_helpers/payment_methods/:id/update`: the saved
 * card's new expiry or number is what the next charge sends, at an account holding no token for it (the vault's card).
 */
let fakes: ProviderFakes;
let inbound: Awaited<ReturnType<typeof startInboundGateway>>;
beforeAll(async () => {
  [fakes, inbound] = await Promise.all([startProviderFakes(), startInboundGateway()]);
  Object.assign(config, fakes.env);
});
afterAll(() => Promise.all([fakes.close(), inbound.close()]));

const update = (key: string, id: string, body: unknown) =>
  invokeHttp(updateCard, apiEvent({ method: 'POST', path: `/api/test_helpers/payment_methods/${id}/update`, headers: bearer(key), body }));
const updatesOf = async (owner: Owner) => (await listEvents(owner, { event: 'payment_method.updated' }, { limit: 10 })).data;

/** A merchant with its Stripe account connected and a card saved for its customer. */
async function savedCard(number = freshCard()) {
  const { secretKey, customerId, owner } = await merchantIn('test');
  const connectorId = await connect(secretKey, 'stripe', 'test');
  const saved = await paymentMethods.create(secretKey, cardBody(number, { customer_id: customerId }));
  expect(saved.status, saved.rawBody).toBe(200);
  return { secretKey, owner, connectorId, customerId, pm: saved.body as { id: string }, number };
}

describe('POST /api/test_helpers/payment_methods/:id/update', () => {
  it('a new expiry: the payment method shows it, payment_method.updated is sent, the next charge sends it', async () => {
    // Prepare
    const { secretKey, owner, pm, number } = await savedCard();
    // Act
    const res = await update(secretKey, pm.id, { exp_month: 3, exp_year: 2036 });
    const charged = await payments.create(secretKey, { amount: 1500, currency: 'eur', routing: 'stripe', payment_method: pm.id });
    // Assess
    expect(res.status, res.rawBody).toBe(200);
    expect(res.body).toMatchObject({ id: pm.id, card: { last4: number.slice(-4), exp_month: 3, exp_year: 2036 } });
    expect((await paymentMethods.get(secretKey, pm.id)).body.card).toMatchObject({ exp_month: 3, exp_year: 2036 });
    expect(await updatesOf(owner)).toMatchObject([{ data: { object: { id: pm.id, card: { exp_month: 3 } } } }]);
    expect(charged.body).toMatchObject({ status: 'succeeded', payment_method: { id: pm.id, card: { exp_month: 3, exp_year: 2036 } } });
    expect(receivedBy(fakes, 'stripe', charged.body.attempts[0].id).body.payment_method_data.card).toMatchObject({
      exp_month: '3',
      exp_year: '2036',
    });
  });

  it('a replacement number: the new last four digits, and the next charge sends the new number; the same update again sends nothing', async () => {
    // Prepare
    const { secretKey, owner, pm } = await savedCard();
    const replacement = freshCard();
    // Act
    const first = await update(secretKey, pm.id, { exp_month: 5, exp_year: 2037, number: replacement });
    const again = await update(secretKey, pm.id, { exp_month: 5, exp_year: 2037, number: replacement });
    const charged = await payments.create(secretKey, { amount: 1500, currency: 'eur', routing: 'stripe', payment_method: pm.id });
    // Assess
    expect(first.body).toMatchObject({ card: { last4: replacement.slice(-4), exp_month: 5, exp_year: 2037 } });
    expect(again.body).toEqual(first.body);
    expect(JSON.stringify(first.body)).not.toContain(replacement);
    expect(await updatesOf(owner)).toHaveLength(1);
    expect(receivedBy(fakes, 'stripe', charged.body.attempts[0].id).numberLast4).toBe(replacement.slice(-4));
  });

  it('refuses bad input with 400 naming the field, a live card, and an unknown payment method', async () => {
    // Prepare
    const { secretKey, pm } = await savedCard();
    const live = await merchantIn('live');
    // Act
    const expired = await update(secretKey, pm.id, { exp_month: 1, exp_year: 2020 });
    const badNumber = await update(secretKey, pm.id, { exp_month: 1, exp_year: 2036, number: '4242424242424241' });
    const unknown = await update(secretKey, 'pm_00000000000000000000000000', { exp_month: 1, exp_year: 2036 });
    const inLive = await update(live.secretKey, pm.id, { exp_month: 1, exp_year: 2036 });
    // Assess
    expect(expired.status).toBe(400);
    expect(expired.body.error).toMatchObject({ code: 'parameter_invalid', param: 'exp_year' });
    expect(badNumber.status).toBe(400);
    expect(badNumber.body.error).toMatchObject({ param: 'number' });
    expect(unknown.status).toBe(404);
    expect(inLive.status).toBe(400);
    expect(inLive.body.error).toMatchObject({ code: 'livemode_not_allowed' });
  });
});

describe("a provider's card updater (Stripe's webhook, Adyen's answer to a charge)", () => {
  it("Stripe's payment_method.automatically_updated: the pm_ takes the new expiry and last four, the next charge elsewhere sends the new expiry", async () => {
    // Prepare: the card charged once at Stripe (so Stripe keeps it, tagged with our pm_), Stripe's notifications on
    const { secretKey, owner, connectorId, pm, number } = await savedCard();
    fakes.stripe.notifications.register(inbound.urlFor(connectorId));
    const first = await payments.create(secretKey, { amount: 1500, currency: 'eur', routing: 'stripe', payment_method: pm.id });
    expect(first.body.status, first.rawBody).toBe('succeeded');
    const [, stripeMethod] = (await getPaymentMethod(owner, pm.id))!.tokens[connectorId]!.token.split('|');
    // Act: the network tells Stripe the card has a new expiry
    fakes.stripe.updateCard(stripeMethod!, { exp_month: 8, exp_year: 2038 });
    await fakes.stripe.notifications.idle();
    const elsewhere = await payments.create(secretKey, { amount: 1500, currency: 'eur', routing: 'adyen', payment_method: pm.id });
    // Assess
    expect((await paymentMethods.get(secretKey, pm.id)).body.card).toMatchObject({ last4: number.slice(-4), exp_month: 8, exp_year: 2038 });
    expect(await updatesOf(owner)).toMatchObject([{ data: { object: { id: pm.id, card: { exp_month: 8, exp_year: 2038 } } } }]);
    expect(elsewhere.body).toMatchObject({ status: 'succeeded', payment_method: { card: { exp_month: 8, exp_year: 2038 } } });
  });

  it("ignores an update arriving at another merchant's account: its pm_ is not that merchant's", async () => {
    // Prepare: a card of merchant B kept at Stripe; Stripe's notifications go to merchant A's connector
    const [a, b] = await Promise.all([savedCard(), savedCard()]);
    await payments.create(b.secretKey, { amount: 1500, currency: 'eur', routing: 'stripe', payment_method: b.pm.id });
    const [, stripeMethod] = (await getPaymentMethod(b.owner, b.pm.id))!.tokens[b.connectorId]!.token.split('|');
    fakes.stripe.notifications.register(inbound.urlFor(a.connectorId));
    // Act
    fakes.stripe.updateCard(stripeMethod!, { exp_month: 8, exp_year: 2038 });
    await fakes.stripe.notifications.idle();
    // Assess: the notification was accepted, and changed nothing anywhere
    expect(fakes.stripe.notifications.all().at(-1)).toMatchObject({ type: 'payment_method.automatically_updated', status: 200 });
    expect((await paymentMethods.get(b.secretKey, b.pm.id)).body.card).toMatchObject({ exp_month: 12, exp_year: 2034 });
    expect([...(await updatesOf(a.owner)), ...(await updatesOf(b.owner))]).toEqual([]);
  });

  it("Adyen's Real Time Account Updater: a charge of the stored card reports its new expiry; the pm_ takes it, other accounts send it", async () => {
    // Prepare: the card kept at Adyen (its first charge), then the networks' updater changes it there
    const { secretKey, owner, customerId } = await merchantIn('test');
    const adyen = await connect(secretKey, 'adyen', 'test');
    const saved = await paymentMethods.create(secretKey, cardBody(freshCard(), { customer_id: customerId }));
    const pm = saved.body as { id: string };
    const pay = (routing: string) => payments.create(secretKey, { amount: 1500, currency: 'eur', routing, payment_method: pm.id });
    expect((await pay('adyen')).body.status).toBe('succeeded');
    const [storedPaymentMethodId] = (await getPaymentMethod(owner, pm.id))!.tokens[adyen]!.token.split(':');
    fakes.adyen.updateStoredCard(storedPaymentMethodId!, { exp_month: 9, exp_year: 2033 });
    // Act: the next charge at Adyen, then one at Stripe's sandbox
    const atAdyen = await pay('adyen');
    const elsewhere = await pay('stripe');
    // Assess
    expect(atAdyen.body.status).toBe('succeeded');
    expect((await paymentMethods.get(secretKey, pm.id)).body.card).toMatchObject({ exp_month: 9, exp_year: 2033 });
    expect(await updatesOf(owner)).toMatchObject([{ data: { object: { id: pm.id, card: { exp_month: 9, exp_year: 2033 } } } }]);
    expect(elsewhere.body).toMatchObject({ status: 'succeeded', payment_method: { card: { exp_month: 9, exp_year: 2033 } } });
  });
});
