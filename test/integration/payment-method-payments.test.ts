import { describe, expect, it } from 'vitest';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import * as vault from '../../shared/store/vault.ts';
import { newMerchant, testOwner } from '../support/merchant.ts';
import { cardBody, paymentMethods, savedFromBrowser } from '../support/payment-methods.ts';
import { freshCard, payments } from '../support/payments.ts';

const heldFor = (paymentId: string) => [...sandboxBooks.authorizations.values()].filter((a) => a.paymentId === paymentId);

const charge = (key: string, paymentMethod: string, overrides: Record<string, unknown> = {}) =>
  payments.create(key, { amount: 2500, currency: 'usd', routing: 'stripe', payment_method: paymentMethod, ...overrides });

describe('a payment with a saved payment method (pm_)', () => {
  it("is charged with the vault's card and CVC first, then with the token the provider issued; the CVC is gone after the first", async () => {
    // Prepare: a shopper's browser saves the card for the merchant's customer
    const { apiKey, customerId, merchantId } = await newMerchant();
    const pm = (await savedFromBrowser(apiKey, cardBody(freshCard()), customerId)).body;

    // Act
    const first = await charge(apiKey, pm.id);
    const second = await charge(apiKey, pm.id);

    // Assess: both authorized, for the card's customer, showing the pm_
    for (const res of [first, second]) {
      expect(res.status, res.rawBody).toBe(200);
      expect(res.body).toMatchObject({ status: 'succeeded', provider: 'stripe', customer_id: customerId });
      expect(res.body.payment_method).toEqual({
        id: pm.id,
        type: 'card',
        card: { brand: 'visa', last4: pm.card.last4, exp_month: 12, exp_year: 2034 },
      });
    }
    expect(heldFor(first.body.id)).toMatchObject([{ paidWith: 'card and cvc' }]);
    expect(heldFor(second.body.id)).toMatchObject([{ paidWith: 'token' }]);
    expect((await getPaymentMethod(testOwner(merchantId), pm.id))?.tokens).toEqual({
      stripe: {
        provider: 'stripe',
        connector_id: null,
        token: expect.stringMatching(/^tok_stripe/),
        network_transaction_id: expect.stringMatching(/^\d{15}$/),
      },
    });
    const kept = await vault.readCard(testOwner(merchantId), pm.id);
    expect(kept).toMatchObject({ number: expect.any(String) });
    expect(kept?.cvc).toBeUndefined();
  });

  it('at another provider, the card from the vault is charged (without its CVC once used) and that provider keeps its own token', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const pm = (await paymentMethods.create(apiKey, cardBody(freshCard()))).body;
    await charge(apiKey, pm.id);
    // Act
    const elsewhere = await charge(apiKey, pm.id, { routing: 'adyen' });
    // Assess
    expect(elsewhere.status, elsewhere.rawBody).toBe(200);
    expect(elsewhere.body).toMatchObject({ status: 'succeeded', provider: 'adyen', customer_id: null });
    expect(heldFor(elsewhere.body.id)).toMatchObject([{ paidWith: 'card' }]);
    expect(Object.keys((await getPaymentMethod(testOwner(merchantId), pm.id))!.tokens).sort()).toEqual(['adyen', 'stripe']);
  });

  it("answers 400 resource_missing for an unknown or another merchant's pm_, and 400 for a pm_ of another customer", async () => {
    // Prepare
    const [mine, theirs] = await Promise.all([newMerchant(), newMerchant()]);
    const foreign = (await paymentMethods.create(theirs.apiKey, cardBody(freshCard()))).body;
    const janes = (await paymentMethods.create(mine.apiKey, cardBody(freshCard(), { customer_id: mine.customerId }))).body;
    const { createCustomer } = await import('../../shared/domain/customers.ts');
    const other = await createCustomer({ id: mine.merchantId, credential: 'api_key', livemode: false }, { email: 'other@example.com' });
    // Act
    const unknown = await charge(mine.apiKey, 'pm_01jq7k3v9qf2m7x4b6n5c0t1wz');
    const notMine = await charge(mine.apiKey, foreign.id);
    const wrongCustomer = await charge(mine.apiKey, janes.id, { customer_id: other.id });
    const malformed = await charge(mine.apiKey, 'pm_nope');
    // Assess: nothing charged
    for (const res of [unknown, notMine]) expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
    expect(wrongCustomer.body.error).toMatchObject({ code: 'parameter_invalid', param: 'payment_method' });
    expect(wrongCustomer.body.error.message).toMatch(/belongs to customer/);
    expect(malformed.body.error).toMatchObject({ code: 'parameter_invalid', param: 'payment_method' });
    expect((await payments.list(mine.apiKey)).body.total).toBe(0);
  });

  it('a card object with a bad number still names payment_method.card.number', async () => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, {
      amount: 2500,
      currency: 'usd',
      payment_method: { type: 'card', card: { number: '4242424242424241', exp_month: 12, exp_year: 2034, cvc: '123' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'payment_method.card.number' });
    expect(res.body.error.message).toMatch(/Luhn/);
  });
});

describe('setup_future_usage on a create with a card', () => {
  it("saves the card as a pm_ for the customer, shown on the payment, with the approving account's token; the next charge uses it", async () => {
    // Prepare
    const { apiKey, customerId, merchantId } = await newMerchant();
    const number = freshCard();
    const body = { amount: 2500, currency: 'usd', routing: 'stripe', customer_id: customerId, setup_future_usage: 'off_session' };
    // Act
    const res = await payments.create(apiKey, {
      ...body,
      payment_method: { type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc: '123' } },
    });
    // Assess
    expect(res.status, res.rawBody).toBe(200);
    const pmId = res.body.payment_method.id as string;
    expect(pmId).toMatch(/^pm_/);
    const listed = await paymentMethods.list(apiKey, { customer_id: customerId });
    expect(listed.body.data).toMatchObject([{ id: pmId, card: { last4: number.slice(-4) } }]);
    expect(Object.keys((await getPaymentMethod(testOwner(merchantId), pmId))!.tokens)).toEqual(['stripe']);
    const next = await charge(apiKey, pmId);
    expect(heldFor(next.body.id)).toMatchObject([{ paidWith: 'token' }]);
  });

  it('a declined payment leaves no card offered to the customer', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const card = { number: '4000000000000002', exp_month: 12, exp_year: 2034, cvc: '123' };
    // Act
    const res = await payments.create(apiKey, {
      amount: 2500,
      currency: 'usd',
      customer_id: customerId,
      setup_future_usage: 'on_session',
      payment_method: { type: 'card', card },
    });
    // Assess
    expect(res.status).toBe(402);
    expect((await paymentMethods.list(apiKey, { customer_id: customerId })).body.data).toEqual([]);
  });
});
