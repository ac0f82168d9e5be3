import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { chance } from '../../shared/domain/routing-context.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { connect, merchantIn, receivedBy } from '../support/connected-accounts.ts';
import { payments } from '../support/payments.ts';
import { rules } from '../support/rules.ts';
import { allowShop, fakeChallenge, shopperReturns } from '../support/three-d-secure.ts';

/**
 * 3-D Secure through the merchant's own accounts (the provider fakes, their real connectors): what a payment records
 * when the shopper fails the challenge or the issuer declines after it, and a card whose issuer asks for
 * authentication routed to Braintree first, which cannot send the shopper anywhere: with `return_url` the payment
 * fails over to Adyen and authenticates there; without it, it is declined as before. Asserted at the fakes.
 */
let fakes: ProviderFakes;
const realRandom = chance.random;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
  chance.random = () => 0.99; // no exploration: after the rule's provider, the smart order is the scores' (Adyen's fee is lower)
});
afterAll(async () => {
  chance.random = realRandom;
  await fakes.close();
});
afterEach(() => expect(fakes.adyen.contractViolations).toEqual([]));

const RETURN_URL = 'https://shop.example/checkout/done';
const card = (number: string) => ({ type: 'card', card: { number, exp_month: 3, exp_year: 2030, cvc: '737' } });

/** The payment as the API shows it once the shopper pressed `button` on the fake's challenge page and came back. */
async function afterChallenge(
  secretKey: string,
  created: { body: { id: string; next_action: { redirect_to_url: { url: string } } } },
  button: 'Pass' | 'Fail',
) {
  const back = await shopperReturns(await fakeChallenge(created.body.next_action.redirect_to_url.url, button));
  expect(back.status, back.rawBody).toBe(303);
  return (await payments.get(secretKey, created.body.id)).body;
}

describe.each([
  ['stripe', '4000002760003184', { version: null, eci: null }],
  ['adyen', '5454545454545454', { version: '2.2.0', eci: '00' }],
] as const)('a challenge failed at the %s fake', (provider, number, details) => {
  it('records failed authentication_required with three_d_secure: challenge, failed, no liability shift', async () => {
    // Prepare
    const { secretKey } = await merchantIn('test');
    await allowShop(secretKey);
    await connect(secretKey, provider, 'test');
    const created = await payments.create(secretKey, {
      amount: 3100,
      currency: 'eur',
      routing: provider,
      return_url: RETURN_URL,
      payment_method: card(number),
    });
    expect(created.body.status, created.rawBody).toBe('requires_action');
    // Act
    const payment = await afterChallenge(secretKey, created, 'Fail');
    // Assess
    expect(payment).toMatchObject({
      status: 'failed',
      provider,
      decline_code: 'authentication_required',
      three_d_secure: { ...details, flow: 'challenge', result: 'failed', liability_shift: false },
    });
  });
});

describe('a challenge passed at the Stripe fake, then declined by the issuer (4000008400001629)', () => {
  it("records the issuer's decline with three_d_secure authenticated, from Stripe's failed charge", async () => {
    // Prepare
    const { secretKey } = await merchantIn('test');
    await allowShop(secretKey);
    await connect(secretKey, 'stripe', 'test');
    const created = await payments.create(secretKey, {
      amount: 3100,
      currency: 'eur',
      routing: 'stripe',
      return_url: RETURN_URL,
      payment_method: card('4000008400001629'),
    });
    // Act
    const payment = await afterChallenge(secretKey, created, 'Pass');
    // Assess
    expect(payment).toMatchObject({
      status: 'failed',
      decline_code: 'generic_decline',
      three_d_secure: { version: '2.2.0', flow: 'challenge', result: 'authenticated', eci: '05', liability_shift: true },
    });
  });
});

describe('a card Adyen challenges, routed to Braintree first', () => {
  /** A merchant with its Braintree and Adyen accounts and a rule putting Braintree first; the accounts' ids. */
  async function braintreeFirst() {
    const { secretKey } = await merchantIn('test');
    await allowShop(secretKey);
    const accounts = { braintree: await connect(secretKey, 'braintree', 'test'), adyen: await connect(secretKey, 'adyen', 'test') };
    const rule = await rules.create(secretKey, { name: 'Braintree first', provider: 'braintree', strategy: 'smart', priority: 1, conditions: [] });
    expect(rule.status, rule.rawBody).toBe(200);
    return { secretKey, accounts };
  }
  /** What the Braintree fake answered the attempt: the transaction's status and processor response code. */
  const braintreeAnswered = (attemptId: string) => {
    const tx = [...fakes.braintree.gateway.transactions.values()].find((t) => t.orderId === attemptId);
    return tx && { status: tx.status, code: (tx.history.at(-1)?.processorResponse as { legacyCode?: string } | null)?.legacyCode };
  };

  it('with return_url: Braintree answers authentication_required, Adyen challenges, and the payment ends authenticated at Adyen', async () => {
    // Prepare
    const { secretKey, accounts } = await braintreeFirst();
    // Act
    const created = await payments.create(secretKey, {
      amount: 3100,
      currency: 'eur',
      routing: 'rules',
      return_url: RETURN_URL,
      payment_method: card('5454545454545454'),
    });
    const payment = await afterChallenge(secretKey, created, 'Pass');
    // Assess: at the fakes, Braintree's processor declined 2099 and Adyen was asked for a challenge
    expect(created.body, created.rawBody).toMatchObject({ status: 'requires_action', provider: 'adyen', connector_id: accounts.adyen });
    const [atBraintree, atAdyen] = created.body.attempts;
    expect(atBraintree).toMatchObject({ provider: 'braintree', connector_id: accounts.braintree, decline_code: 'authentication_required' });
    expect(braintreeAnswered(atBraintree.id)).toEqual({ status: 'PROCESSOR_DECLINED', code: '2099' });
    expect(receivedBy(fakes, 'adyen', atAdyen.id).body).toMatchObject({
      returnUrl: expect.stringContaining(`/hosted/3ds/return/${created.body.id}`),
      authenticationData: { attemptAuthentication: 'always' },
      threeDS2RequestData: { threeDSRequestorChallengeInd: '04' },
    });
    expect(created.body.routing_decision.reason).toMatch(
      /answered declined authentication_required, which it cannot ask the shopper for .*, so the payment failed over to .*adyen.*, with 3-D Secure\./,
    );
    expect(payment).toMatchObject({
      status: 'succeeded',
      provider: 'adyen',
      three_d_secure: { flow: 'challenge', result: 'authenticated', liability_shift: true },
    });
    expect(fakes.adyen.holds().filter((h) => h.idempotencyKey === atAdyen.id)).toMatchObject([{ state: 'authorized', amount: 3100 }]);
  });

  it('without return_url: declined authentication_required at Braintree, as before; Adyen is never asked', async () => {
    // Prepare
    const { secretKey } = await braintreeFirst();
    // Act
    const res = await payments.create(secretKey, { amount: 3100, currency: 'eur', routing: 'rules', payment_method: card('5454545454545454') });
    // Assess
    expect(res.status, res.rawBody).toBe(402);
    expect(res.body.error.decline_code).toBe('authentication_required');
    const payment = (await payments.get(secretKey, res.body.error.payment_id)).body;
    expect(payment.attempts).toMatchObject([{ provider: 'braintree', decline_code: 'authentication_required' }]);
    expect(braintreeAnswered(payment.attempts[0].id)).toEqual({ status: 'PROCESSOR_DECLINED', code: '2099' });
    expect(fakes.adyen.requests.filter((r) => r.operation === 'authorize' && JSON.stringify(r.body).includes(payment.id))).toEqual([]);
  });
});
