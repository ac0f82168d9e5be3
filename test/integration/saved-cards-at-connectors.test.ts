import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { clock } from '../../shared/model/clock.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { connect, liveKeyOf, merchantIn, type Mode, type Provider, PROVIDERS, receivedBy } from '../support/connected-accounts.ts';
import type { Json } from '../support/lambda.ts';
import { cardBody, paymentMethods, publishableKeyOf, savedFromBrowser } from '../support/payment-methods.ts';
import { freshCard, payments } from '../support/payments.ts';

/**
 * Saved cards (pm_) at the merchant's own Stripe, Adyen and Braintree accounts (the fakes, reached by the real
 * connectors over HTTP), in test and live mode: the first payment keeps the account's token and the network's id on
 * the pm_, the next one at that account pays with the token, and another account gets the vault's card.
 */
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());
const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
});

/** The account's token, as its fake expects it sent back: the token the pm_ keeps, in the provider's wire fields. */
const TOKEN_CHARGE: Record<Provider, (token: string, sent: Json, mutation?: string) => void> = {
  stripe: (token, sent) => {
    const [customer, method] = token.split('|');
    expect(sent).toMatchObject({ customer, payment_method: method });
    expect(sent.payment_method_data).toBeUndefined();
  },
  adyen: (token, sent) => {
    const [storedPaymentMethodId, shopperReference] = token.split(':');
    expect(sent).toMatchObject({ paymentMethod: { type: 'scheme', storedPaymentMethodId }, shopperReference });
  },
  braintree: (token, sent, mutation) => {
    expect(mutation).toBe('authorizePaymentMethod');
    expect(sent.paymentMethodId).toBe(token);
  },
};

/** A payment the shopper makes with the account's token, flagged customer-initiated in the provider's wire fields. */
const CUSTOMER_INITIATED: Record<Provider, (sent: Json) => void> = {
  stripe: (sent) => {
    expect(sent).toMatchObject({ confirm: 'true', error_on_requires_action: 'true' });
    expect(sent.off_session).toBeUndefined();
  },
  adyen: (sent) => expect(sent).toMatchObject({ shopperInteraction: 'Ecommerce', recurringProcessingModel: 'CardOnFile' }),
  braintree: (sent) => {
    expect(sent.transaction).toBeDefined();
    expect(sent.transaction.paymentInitiator).toBeUndefined();
  },
};

/** How a first payment asks the account to keep the card for the customer, in the provider's wire fields. */
const KEEP_CARD: Record<Provider, (customerId: string) => Json> = {
  stripe: () => ({ setup_future_usage: 'off_session', customer: expect.stringMatching(/^cus_/) }),
  adyen: (customerId) => ({ storePaymentMethod: true, shopperReference: customerId, recurringProcessingModel: 'Subscription' }),
  braintree: () => ({
    transaction: { paymentInitiator: 'RECURRING_FIRST', vaultPaymentMethodAfterTransacting: { when: 'ON_SUCCESSFUL_TRANSACTION' } },
  }),
};

const TOKEN_SHAPE: Record<Provider, RegExp> = { stripe: /^cus_\w+\|pm_\w+$/, adyen: /^\w+:cus_\w+$/, braintree: /^\S+$/ };

const anotherThan = (provider: Provider) => PROVIDERS[(PROVIDERS.indexOf(provider) + 1) % PROVIDERS.length]!;
const pay = (key: string, paymentMethod: string, routing: Provider) =>
  payments.create(key, { amount: 4200, currency: 'eur', routing, payment_method: paymentMethod });

describe.each(['test', 'live'] as Mode[])('a saved card at connected accounts in %s mode', (mode) => {
  it.each(PROVIDERS)(
    '%s: saved with the publishable key, paid and captured, then paid with the kept token; another account gets the vault card without CVC',
    async (provider) => {
      // Prepare: the merchant's own account of this provider and one of another, and a card saved from the browser
      const { secretKey, customerId, owner } = await merchantIn(mode);
      const home = await connect(secretKey, provider, mode);
      const elsewhere = await connect(secretKey, anotherThan(provider), mode);
      const number = freshCard();
      const saved = await savedFromBrowser(secretKey, cardBody(number), customerId);
      expect(saved.status, saved.rawBody).toBe(200);
      const pm = saved.body;

      // Act
      const first = await pay(secretKey, pm.id, provider);
      const captured = await payments.capture(secretKey, first.body.id);
      const second = await pay(secretKey, pm.id, provider);
      const other = await pay(secretKey, pm.id, anotherThan(provider));

      // Assess: every payment authorized at the account it was routed to, for the card's customer
      for (const [res, account] of [
        [first, home],
        [second, home],
        [other, elsewhere],
      ] as const) {
        expect(res.status, res.rawBody).toBe(200);
        expect(res.body).toMatchObject({ status: 'succeeded', connector_id: account, customer_id: customerId, livemode: mode === 'live' });
        expect(res.body.payment_method).toMatchObject({ id: pm.id, card: { last4: number.slice(-4) } });
      }
      expect(captured.body).toMatchObject({ status: 'captured', amount_captured: 4200, connector_id: home });
      expect(fakes[provider].holds().find((h) => h.idempotencyKey === first.body.attempts[0].id)).toMatchObject({
        state: 'captured',
        captured: 4200,
      });

      // Assess: the pm_ keeps each account's token and the network's id of its first authorization
      const { tokens } = (await getPaymentMethod(owner, pm.id))!;
      expect(Object.keys(tokens).sort()).toEqual([home, elsewhere].sort());
      expect(tokens[home]).toEqual({
        provider,
        connector_id: home,
        token: expect.stringMatching(TOKEN_SHAPE[provider]),
        network_transaction_id: expect.stringMatching(/^\d{15}$/),
      });

      // Assess: what each fake received — the card and CVC first, then the token alone (the shopper's own charge),
      // elsewhere the card without CVC
      const sent = (res: { body: Json }, at: Provider) => receivedBy(fakes, at, res.body.attempts[0].id);
      expect(sent(first, provider)).toMatchObject({ numberLast4: number.slice(-4), cvc: true, body: KEEP_CARD[provider](customerId) });
      const withToken = sent(second, provider);
      expect(withToken).toMatchObject({ numberLast4: undefined, cvc: false });
      expect(JSON.stringify(withToken.body)).not.toContain(number);
      TOKEN_CHARGE[provider](tokens[home]!.token, withToken.body, withToken.mutation);
      CUSTOMER_INITIATED[provider](withToken.body);
      expect(sent(other, anotherThan(provider))).toMatchObject({ numberLast4: number.slice(-4), cvc: false });
    },
  );
});

describe('a saved card of no customer', () => {
  it.each(PROVIDERS)('%s: is kept under the pm_ id, and its next payment there pays with the token, customer-initiated', async (provider) => {
    // Prepare
    const { secretKey, owner } = await merchantIn('test');
    const account = await connect(secretKey, provider, 'test');
    const pm = (await paymentMethods.create(await publishableKeyOf(secretKey), cardBody(freshCard()))).body;
    // Act
    const first = await pay(secretKey, pm.id, provider);
    const second = await pay(secretKey, pm.id, provider);
    // Assess
    for (const res of [first, second]) expect(res.body, res.rawBody).toMatchObject({ status: 'succeeded', connector_id: account, customer_id: null });
    const token = (await getPaymentMethod(owner, pm.id))!.tokens[account]!.token;
    if (provider === 'adyen') expect(token.endsWith(`:${pm.id}`)).toBe(true);
    const withToken = receivedBy(fakes, provider, second.body.attempts[0].id);
    expect(withToken.numberLast4).toBeUndefined();
    TOKEN_CHARGE[provider](token, withToken.body, withToken.mutation);
    CUSTOMER_INITIATED[provider](withToken.body);
  });
});

describe('a saved card never charged', () => {
  it.each(PROVIDERS)('%s: after an hour its first payment sends the vault card without the CVC', async (provider) => {
    // Prepare
    const { secretKey, customerId } = await merchantIn('test');
    await connect(secretKey, provider, 'test');
    const number = freshCard();
    const pm = (await savedFromBrowser(secretKey, cardBody(number), customerId)).body;
    clock.now = () => realNow() + 61 * 60_000;
    // Act
    const paid = await pay(secretKey, pm.id, provider);
    // Assess
    expect(paid.status, paid.rawBody).toBe(200);
    expect(receivedBy(fakes, provider, paid.body.attempts[0].id)).toMatchObject({ numberLast4: number.slice(-4), cvc: false });
  });
});

describe('a saved card across modes', () => {
  it('a pk_test_ card is no payment method for a live key, nor a pk_live_ card for a test key: 400 resource_missing', async () => {
    // Prepare: one merchant, a live Stripe account, a card saved in each mode
    const test = await merchantIn('test');
    const liveKey = await liveKeyOf(test.merchantId);
    await connect(liveKey, 'stripe', 'live');
    const testCard = (await paymentMethods.create(await publishableKeyOf(test.secretKey), cardBody(freshCard()))).body;
    const liveCard = (await paymentMethods.create(await publishableKeyOf(liveKey), cardBody(freshCard()))).body;
    // Act
    const liveWithTestCard = await pay(liveKey, testCard.id, 'stripe');
    const testWithLiveCard = await pay(test.secretKey, liveCard.id, 'stripe');
    const liveWithLiveCard = await pay(liveKey, liveCard.id, 'stripe');
    // Assess
    for (const res of [liveWithTestCard, testWithLiveCard]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
    }
    expect(liveWithTestCard.body.error.message).toContain(`no payment method ${testCard.id} in live mode`);
    expect(liveWithLiveCard.body).toMatchObject({ status: 'succeeded', livemode: true });
  });
});
