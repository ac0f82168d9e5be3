import { afterEach, describe, expect, it } from 'vitest';
import { handler as updateSubscription } from '../../functions/subscriptions/update.ts';
import { clock } from '../../shared/model/clock.ts';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { cardBody, paymentMethods, savedFromBrowser } from '../support/payment-methods.ts';
import { freshCard, payments } from '../support/payments.ts';
import { renewOn, subscribe } from '../support/renewals.ts';
import { rules } from '../support/rules.ts';

const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
});

const heldFor = (paymentId: string) => [...sandboxBooks.authorizations.values()].filter((a) => a.paymentId === paymentId);

describe('a subscription on a saved card (pm_)', () => {
  it('renews off-session at another provider than the one that first charged the card: the vault card, merchant-initiated with the network id', async () => {
    // Prepare: the shopper saves a card, pays at Stripe; the merchant then routes everything to Adyen
    const { apiKey, customerId, merchantId } = await newMerchant();
    const pm = (await savedFromBrowser(apiKey, cardBody(freshCard()), customerId)).body;
    const first = await payments.create(apiKey, { amount: 2900, currency: 'eur', routing: 'stripe', payment_method: pm.id });
    expect(first.status, first.rawBody).toBe(200);
    const firstNetworkId = (await getPaymentMethod(testOwner(merchantId), pm.id))!.tokens.stripe!.network_transaction_id;
    expect(firstNetworkId).toMatch(/^\d{15}$/);
    const sub = (
      await subscribe(apiKey, { customer_id: customerId, payment_method: pm.id, plan: 'Pro', amount: 2900, currency: 'eur', interval: 'month' })
    ).body;
    expect(sub.payment_method).toBe(pm.id);
    expect((await rules.create(apiKey, { name: 'All to Adyen', provider: 'adyen', strategy: 'fixed', priority: 1, conditions: [] })).status).toBe(
      200,
    );

    // Act
    await renewOn(sub.next_billing, sub.id);

    // Assess: captured at Adyen with the card from the vault, no CVC, merchant-initiated naming Stripe's network id
    const [renewal] = (await listPayments(testOwner(merchantId), {}, { limit: 10 })).data.filter((p) => p.metadata.subscription_id === sub.id);
    expect(renewal).toMatchObject({ status: 'captured', provider: 'adyen', payment_method_id: pm.id, customer_id: customerId });
    expect(heldFor(renewal!.id)).toMatchObject([
      { paidWith: 'card', initiator: { type: 'merchant', networkTransactionId: firstNetworkId }, captured: 2900 },
    ]);
    expect(Object.keys((await getPaymentMethod(testOwner(merchantId), pm.id))!.tokens).sort()).toEqual(['adyen', 'stripe']);
  });

  it("renews on the customer's default payment method, with that account's token, when the subscription names none", async () => {
    // Prepare
    const { apiKey, customerId, merchantId } = await newMerchant();
    const pm = (await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customerId }))).body;
    expect((await payments.create(apiKey, { amount: 1000, currency: 'usd', routing: 'stripe', payment_method: pm.id })).status).toBe(200);
    const sub = (await subscribe(apiKey, { customer_id: customerId, plan: 'Pro', amount: 1500, currency: 'usd', interval: 'month' })).body;
    expect((await rules.create(apiKey, { name: 'All to Stripe', provider: 'stripe', strategy: 'fixed', priority: 1, conditions: [] })).status).toBe(
      200,
    );
    // Act
    await renewOn(sub.next_billing, sub.id);
    // Assess
    const [renewal] = (await listPayments(testOwner(merchantId), {}, { limit: 10 })).data.filter((p) => p.metadata.subscription_id === sub.id);
    expect(renewal).toMatchObject({ status: 'captured', provider: 'stripe', payment_method_id: pm.id });
    expect(heldFor(renewal!.id)).toMatchObject([{ paidWith: 'token', initiator: { type: 'merchant' } }]);
  });

  it("refuses a payment_method that is not the customer's: 400 resource_missing naming payment_method", async () => {
    const { apiKey, customerId } = await newMerchant();
    const loose = (await paymentMethods.create(apiKey, cardBody(freshCard()))).body;
    const base = { customer_id: customerId, plan: 'Pro', amount: 1500, currency: 'usd', interval: 'month' };
    const created = await subscribe(apiKey, { ...base, payment_method: loose.id });
    const sub = (await subscribe(apiKey, base)).body;
    const updated = await invokeHttp(
      updateSubscription,
      apiEvent({ method: 'PUT', path: `/api/subscriptions/${sub.id}`, headers: bearer(apiKey), body: { payment_method: loose.id } }),
    );
    for (const res of [created, updated]) expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
  });
});
