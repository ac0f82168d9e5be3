import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// Reads the table's stream: a table of its own with one (the suite's shared table has none).
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('payment-method-delete', { stream: true }));
import { handler as deleteCustomer } from '../../functions/customers/delete.ts';
import { handler as getCustomer } from '../../functions/customers/get.ts';
import { handler as cancelSubscription } from '../../functions/subscriptions/cancel.ts';
import { handler as createSubscription } from '../../functions/subscriptions/create.ts';
import { handler as configureWebhook } from '../../functions/webhooks/configure.ts';
import { handler as deleteClock } from '../../functions/test-clocks/delete.ts';
import { handler as delivery } from '../../functions/workers/webhook-delivery.ts';
import { config } from '../../shared/config.ts';
import { getAnyPaymentMethod } from '../../shared/store/payment-methods.ts';
import { listEvents } from '../../shared/store/events.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { connect, merchantIn, type Provider, PROVIDERS } from '../support/connected-accounts.ts';
import { customerOnClock } from '../support/clocks.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { deletePaymentMethod, runRemovals, streamed, vaultItemsOf } from '../support/payment-method-delete.ts';
import { cardBody, paymentMethods } from '../support/payment-methods.ts';
import { freshCard, payments } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';

/*
 * DELETE /api/payment_methods/:id (docs/api.md "Deleting a payment method"): the vault's items go at once, the pm_
 * answers 404 everywhere and cannot be charged, `payment_method.deleted` is sent, a subscription that charges it
 * blocks it, a customer's delete takes its payment methods along, and the worker removes the tokens each connector
 * account issued (the fakes, reached by the real connectors over HTTP), retrying a failed removal.
 */

const call = {
  getCustomer: (key: string, id: string) => invokeHttp(getCustomer, apiEvent({ method: 'GET', path: `/api/customers/${id}`, headers: bearer(key) })),
  deleteCustomer: (key: string, id: string) =>
    invokeHttp(deleteCustomer, apiEvent({ method: 'DELETE', path: `/api/customers/${id}`, headers: bearer(key) })),
  subscribe: (key: string, customerId: string, paymentMethod?: string) =>
    invokeHttp(
      createSubscription,
      apiEvent({
        method: 'POST',
        path: '/api/subscriptions',
        headers: bearer(key),
        body: {
          customer_id: customerId,
          plan: 'Pro',
          amount: 900,
          currency: 'usd',
          interval: 'month',
          ...(paymentMethod ? { payment_method: paymentMethod } : {}),
        },
      }),
    ),
  cancel: (key: string, id: string) =>
    invokeHttp(cancelSubscription, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/cancel`, headers: bearer(key) })),
  configure: (key: string, url: string) =>
    invokeHttp(
      configureWebhook,
      apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: bearer(key), body: { url, events: ['payment_method.deleted'] } }),
    ),
};

/** A merchant with a customer and a card saved for it (its default), CVC included. */
async function savedCard() {
  const { apiKey, merchantId, customerId } = await newMerchant();
  const saved = await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customerId }));
  expect(saved.status, saved.rawBody).toBe(200);
  return { apiKey, merchantId, customerId, pm: saved.body as { id: string } };
}

describe('DELETE /api/payment_methods/:id', () => {
  it('deletes: the vault items go at once, 404 afterwards, unlisted, no longer the default, the event delivered', async () => {
    // Prepare
    const { apiKey, merchantId, customerId, pm } = await savedCard();
    const receiver = await startReceiver([200]);
    expect((await call.configure(apiKey, receiver.url)).status).toBe(200);
    expect((await vaultItemsOf(pm.id)).map((item) => item.sk).sort()).toEqual(['CARD', 'CVC']);
    expect((await call.getCustomer(apiKey, customerId)).body.default_payment_method).toBe(pm.id);
    // Act
    const res = await deletePaymentMethod(apiKey, pm.id);
    // Assess
    expect(res.status, res.rawBody).toBe(200);
    expect(res.body).toEqual({ id: pm.id, object: 'payment_method', deleted: true });
    expect(await vaultItemsOf(pm.id)).toEqual([]);
    const get = await paymentMethods.get(apiKey, pm.id);
    expect(get.status).toBe(404);
    expect(get.body.error).toMatchObject({ code: 'resource_missing' });
    expect((await paymentMethods.list(apiKey, { customer_id: customerId })).body.data).toEqual([]);
    expect((await call.getCustomer(apiKey, customerId)).body.default_payment_method).toBeNull();
    expect((await paymentMethods.attach(apiKey, pm.id, customerId)).status).toBe(404);
    // Assess: the event, stored and delivered to the merchant's endpoint
    const [event] = (await listEvents(testOwner(merchantId), { event: 'payment_method.deleted' }, { limit: 10 })).data;
    expect(event?.data.object).toMatchObject({ id: pm.id, object: 'payment_method', customer_id: customerId });
    const sent = await streamed(merchantId);
    expect(sent.removals).toEqual([{ payment_method_id: pm.id, merchant_id: merchantId, livemode: false }]);
    await delivery(queueEvent(sent.events, 'events'), fakeContext({ name: 'workers/webhook-delivery' }));
    await receiver.waitFor(1);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'payment_method.deleted', data: { object: { id: pm.id } } });
    await receiver.close();
  });

  it('answers 404 the second time, and only one of several concurrent deletes succeeds, with one event', async () => {
    // Prepare
    const { apiKey, merchantId, pm } = await savedCard();
    // Act
    const racing = await Promise.all([1, 2, 3].map(() => deletePaymentMethod(apiKey, pm.id)));
    const again = await deletePaymentMethod(apiKey, pm.id);
    // Assess
    expect(racing.map((r) => r.status).sort()).toEqual([200, 404, 404]);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'resource_missing', message: expect.stringMatching(/^Resource not found/) });
    expect((await listEvents(testOwner(merchantId), { event: 'payment_method.deleted' }, { limit: 10 })).data).toHaveLength(1);
  });

  it('cannot be charged once deleted: a payment with it answers 400 resource_missing naming payment_method', async () => {
    // Prepare
    const { apiKey, pm } = await savedCard();
    expect((await deletePaymentMethod(apiKey, pm.id)).status).toBe(200);
    // Act
    const res = await payments.create(apiKey, { amount: 1500, currency: 'usd', payment_method: pm.id });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
  });

  it('is refused while a subscription charges it, by name or as the default, and goes through once it is cancelled', async () => {
    // Prepare: one subscription naming the card, one charging the customer's default (the same card)
    const { apiKey, customerId, pm } = await savedCard();
    const named = (await call.subscribe(apiKey, customerId, pm.id)).body;
    const byDefault = (await call.subscribe(apiKey, customerId)).body;
    // Act
    const blocked = await deletePaymentMethod(apiKey, pm.id);
    await call.cancel(apiKey, named.id);
    const stillBlocked = await deletePaymentMethod(apiKey, pm.id);
    await call.cancel(apiKey, byDefault.id);
    const deleted = await deletePaymentMethod(apiKey, pm.id);
    // Assess
    expect(blocked.status).toBe(400);
    expect(blocked.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('active subscription sub_') });
    expect(stillBlocked.body.error.message).toContain(byDefault.id);
    expect(deleted.status, deleted.rawBody).toBe(200);
  });

  it("is done by a customer's delete for each of its payment methods", async () => {
    // Prepare: two cards of the customer
    const { apiKey, merchantId, customerId, pm } = await savedCard();
    const other = (await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customerId }))).body;
    // Act
    const res = await call.deleteCustomer(apiKey, customerId);
    // Assess
    expect(res.status, res.rawBody).toBe(200);
    for (const id of [pm.id, other.id]) {
      expect((await paymentMethods.get(apiKey, id)).status).toBe(404);
      expect(await vaultItemsOf(id)).toEqual([]);
      expect((await payments.create(apiKey, { amount: 1500, currency: 'usd', payment_method: id })).status).toBe(400);
    }
    const events = (await listEvents(testOwner(merchantId), { event: 'payment_method.deleted' }, { limit: 10 })).data;
    expect(events.map((e) => e.data.object.id).sort()).toEqual([pm.id, other.id].sort());
  });

  it("is done by a test clock's delete for its customers' payment methods", async () => {
    // Prepare: a customer on a clock, with a card
    const { apiKey } = await newMerchant();
    const { clockId, customerId } = await customerOnClock(apiKey, '2031-01-01T00:00:00.000Z');
    const pm = (await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customerId }))).body;
    // Act
    const res = await invokeHttp(deleteClock, apiEvent({ method: 'DELETE', path: `/api/test_clocks/${clockId}`, headers: bearer(apiKey) }));
    // Assess
    expect(res.status, res.rawBody).toBe(200);
    expect((await paymentMethods.get(apiKey, pm.id)).status).toBe(404);
    expect(await vaultItemsOf(pm.id)).toEqual([]);
  });
});

describe('a deleted payment method at connected accounts', () => {
  let fakes: ProviderFakes;
  beforeAll(async () => {
    fakes = await startProviderFakes();
    Object.assign(config, fakes.env);
  });
  afterAll(() => fakes.close());

  /** Whether the fake still holds the token, and would charge it. */
  const heldAt: Record<Provider, (token: string) => boolean> = {
    stripe: (token) => fakes.stripe.attachedCustomer(token.split('|')[1]!) !== null,
    adyen: (token) => fakes.adyen.holdsStoredCard(token.split(':')[0]!),
    braintree: (token) => fakes.braintree.gateway.paymentMethods.has(token),
  };

  it.each(PROVIDERS)('%s: the worker removes the token there, retrying after the provider failed once', async (provider) => {
    // Prepare: a card paid at the merchant's own account, which kept its token on the pm_
    const { merchantId, secretKey, customerId, owner } = await merchantIn('test');
    const account = await connect(secretKey, provider, 'test');
    const pm = (await paymentMethods.create(secretKey, cardBody(freshCard(), { customer_id: customerId }))).body;
    const paid = await payments.create(secretKey, { amount: 4200, currency: 'eur', routing: provider, payment_method: pm.id });
    expect(paid.body).toMatchObject({ status: 'succeeded', connector_id: account });
    const token = (await getAnyPaymentMethod(owner, pm.id))!.tokens[account]!.token;
    expect(heldAt[provider](token)).toBe(true);
    fakes[provider].inject('remove_token', { kind: 'status', status: 503 });
    // Act
    expect((await deletePaymentMethod(secretKey, pm.id)).status).toBe(200);
    const { removals } = await streamed(merchantId);
    const failedFirst = await runRemovals(removals);
    const stillHeld = heldAt[provider](token);
    const retried = await runRemovals(removals);
    // Assess
    expect(failedFirst).toHaveLength(1);
    expect(stillHeld).toBe(true);
    expect(retried).toEqual([]);
    expect(heldAt[provider](token)).toBe(false);
    expect((await getAnyPaymentMethod(owner, pm.id))!.tokens).toEqual({});
    expect(fakes[provider].requests.filter((r) => r.operation === 'remove_token')).toHaveLength(2);
    // Assess: run again (SQS delivers at least once), nothing is asked of the provider
    expect(await runRemovals(removals)).toEqual([]);
    expect(fakes[provider].requests.filter((r) => r.operation === 'remove_token')).toHaveLength(2);
  });
});
