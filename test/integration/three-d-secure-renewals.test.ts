import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as listInvoices } from '../../functions/invoices/list.ts';
import { handler as advanceClock } from '../../functions/test-clocks/advance.ts';
import { handler as createClock } from '../../functions/test-clocks/create.ts';
import { handler as advanceWorker } from '../../functions/workers/test-clock-advance.ts';
import { config } from '../../shared/config.ts';
import { clocksQueue } from '../../shared/domain/test-clocks.ts';
import type { TestClockMessage } from '../../shared/schemas/test-clocks.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { connect, merchantIn, receivedBy } from '../support/connected-accounts.ts';
import { apiEvent, fakeContext, invokeHttp, type Json, queueEvent } from '../support/lambda.ts';
import { bearer } from '../support/merchant.ts';
import { payments } from '../support/payments.ts';
import { subscribe } from '../support/renewals.ts';
import { rules } from '../support/rules.ts';
import { allowShop, fakeChallenge, shopperReturns } from '../support/three-d-secure.ts';

/**
 * A card saved during a payment the shopper authenticated with a 3-D Secure challenge, at the merchant's Stripe and
 * Adyen accounts (the fakes): the subscription on it renews on a test clock without a challenge, merchant-initiated
 * with the network transaction id of that first authorization (docs/api.md "3-D Secure": off-session charges are never
 * challenged).
 */
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());

/** Advances go to the clocks queue (the seam tests replace); here they wait until the worker is run on them. */
const queued: TestClockMessage[] = [];
const realSend = clocksQueue.send;
clocksQueue.send = async (messages) => void queued.push(...messages);
afterEach(() => void (queued.length = 0));
afterAll(() => void (clocksQueue.send = realSend));

type Provider = 'stripe' | 'adyen';
const CHALLENGE_CARD: Record<Provider, string> = { stripe: '4000000000003220', adyen: '5454545454545454' };
/** A merchant-initiated charge with the vault's card at another account, naming the first authorization's network id. */
const WITH_NETWORK_ID: Record<Provider, (networkId: string) => Json> = {
  stripe: (networkId) => ({ off_session: 'true', payment_method_options: { card: { mit_exemption: { network_transaction_id: networkId } } } }),
  adyen: (networkId) => ({
    shopperInteraction: 'ContAuth',
    recurringProcessingModel: 'Subscription',
    additionalData: { networkTxReference: networkId },
  }),
};
/** A merchant-initiated charge with the token the account issued (which names the stored credential itself). */
const WITH_TOKEN: Record<Provider, (token: string) => Json> = {
  stripe: (token) => ({ off_session: 'true', customer: token.split('|')[0], payment_method: token.split('|')[1] }),
  adyen: (token) => ({
    shopperInteraction: 'ContAuth',
    recurringProcessingModel: 'Subscription',
    paymentMethod: { storedPaymentMethodId: token.split(':')[0] },
  }),
};

const call = (key: string, handler: Parameters<typeof invokeHttp>[0], path: string, body?: unknown, method = 'POST') =>
  invokeHttp(handler, apiEvent({ method, path, headers: bearer(key), body }));

describe('a card saved after a 3-D Secure challenge', () => {
  it.each([
    ['stripe', 'stripe'],
    ['adyen', 'adyen'],
    ['stripe', 'adyen'],
    ['adyen', 'stripe'],
  ] as const)('at the %s fake renews at %s without a challenge: invoice paid, merchant-initiated', async (first, renewer) => {
    // Prepare: a customer on a test clock pays with a challenge card at `first`, keeping it, and passes the challenge
    const { secretKey, owner } = await merchantIn('test');
    const accounts = { stripe: await connect(secretKey, 'stripe', 'test'), adyen: await connect(secretKey, 'adyen', 'test') };
    await allowShop(secretKey);
    const clock = (await call(secretKey, createClock, '/api/test_clocks', { frozen_time: '2027-03-10T09:00:00Z' })).body;
    const email = `tds-${clock.id}@example.com`;
    const customer = (await call(secretKey, createCustomer, '/api/customers', { email, test_clock: clock.id })).body;
    const created = await payments.create(secretKey, {
      amount: 1900,
      currency: 'eur',
      routing: first,
      customer_id: customer.id,
      setup_future_usage: 'off_session',
      return_url: 'https://shop.example/done',
      payment_method: { type: 'card', card: { number: CHALLENGE_CARD[first], exp_month: 3, exp_year: 2030, cvc: '737' } },
    });
    expect(created.body.status, created.rawBody).toBe('requires_action');
    await shopperReturns(await fakeChallenge(created.body.next_action.redirect_to_url.url));
    const paid = (await payments.get(secretKey, created.body.id)).body;
    expect(paid).toMatchObject({ status: 'succeeded', connector_id: accounts[first], three_d_secure: { flow: 'challenge' } });
    const pm = paid.payment_method.id as string;
    const kept = (await getPaymentMethod(owner, pm))!.tokens[accounts[first]];
    expect(kept?.network_transaction_id).toMatch(/^\d{15}$/);
    const plan = { customer_id: customer.id, payment_method: pm, plan: 'Pro', amount: 1900, currency: 'eur', interval: 'month' };
    const subscription = (await subscribe(secretKey, plan)).body;
    const rule = await rules.create(secretKey, { name: `All to ${renewer}`, provider: renewer, strategy: 'fixed', priority: 1, conditions: [] });
    expect(rule.status, rule.rawBody).toBe(200);

    // Act: the clock past the period
    await call(secretKey, advanceClock, `/api/test_clocks/${clock.id}/advance`, { frozen_time: '2027-04-12T09:00:00Z' });
    const context = fakeContext({ name: 'workers/test-clock-advance', timeout: 300 });
    for (const message of queued.splice(0)) await advanceWorker(queueEvent([message], 'clocks'), context);

    // Assess: the renewal invoice paid by a payment that asked for no challenge
    const invoices = (await call(secretKey, listInvoices, '/api/invoices', undefined, 'GET')).body.data;
    expect(invoices).toMatchObject([{ status: 'paid', subscription_id: subscription.id }]);
    const renewal = (await payments.list(secretKey, { limit: '10' })).body.data.find(
      (p: { metadata: Record<string, string> }) => p.metadata.subscription_id === subscription.id,
    );
    expect(renewal).toMatchObject({ status: 'captured', connector_id: accounts[renewer], next_action: null, payment_method: { id: pm } });
    // Assess: what the provider received: merchant-initiated, no CVC; the token at the same account, elsewhere the
    // vault's card naming the network id of the authenticated first payment
    const sent = receivedBy(fakes, renewer, renewal.attempts[0].id);
    if (first === renewer) expect(sent).toMatchObject({ numberLast4: undefined, cvc: false, body: WITH_TOKEN[renewer](kept!.token) });
    else
      expect(sent).toMatchObject({
        numberLast4: CHALLENGE_CARD[first].slice(-4),
        cvc: false,
        body: WITH_NETWORK_ID[renewer](kept!.network_transaction_id!),
      });
    expect(sent.body).not.toHaveProperty('return_url');
  });
});
