import { describe, expect, it, vi } from 'vitest';
// The reconciler's query of expired leases reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('three-d-secure-outcomes'));
import { clock } from '../../shared/model/clock.ts';
import { reconcileLeased } from '../../shared/domain/reconciler.ts';
import { expiredOperations } from '../../shared/store/leases.ts';
import { newMerchant as anyMerchant } from '../support/merchant.ts';
import { payments } from '../support/payments.ts';
import { rules } from '../support/rules.ts';
import { allowShop, sandboxChallenge, shopperReturns } from '../support/three-d-secure.ts';

/**
 * What a payment records of 3-D Secure at the sandbox when authentication did not end in an approval (a failed
 * challenge, a pass the issuer then declined, a challenge never finished), routing rules that require 3-D Secure, and
 * the sandbox's Braintree, which cannot send a shopper to authenticate: its `authentication_required` fails over.
 */
const RETURN_URL = 'https://shop.example/checkout/done';
/** A merchant whose checkout origins list the shop, as they must before sending a `return_url`. */
async function newMerchant() {
  const merchant = await anyMerchant();
  await allowShop(merchant.apiKey);
  return merchant;
}
const card = (number: string) => ({ type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc: '123' } });
const pay = (key: string, number: string, extra: Record<string, unknown> = {}) =>
  payments.create(key, { amount: 2500, currency: 'eur', routing: 'stripe', return_url: RETURN_URL, payment_method: card(number), ...extra });

/** The shopper answers the sandbox issuer's challenge and comes back; the payment as the API then shows it. */
async function answered(
  key: string,
  created: { body: { id: string; next_action: { redirect_to_url: { url: string } } } },
  answer: 'passed' | 'failed',
) {
  const back = await shopperReturns(await sandboxChallenge(created.body.next_action.redirect_to_url.url, answer));
  expect(back.status, back.rawBody).toBe(303);
  return (await payments.get(key, created.body.id)).body;
}

describe('3-D Secure outcomes recorded at the sandbox', () => {
  it('a failed challenge: failed authentication_required, and three_d_secure says the challenge failed', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000002760003184');
    expect(created.body.status, created.rawBody).toBe('requires_action');
    // Act
    const payment = await answered(apiKey, created, 'failed');
    // Assess
    expect(payment).toMatchObject({
      status: 'failed',
      decline_code: 'authentication_required',
      three_d_secure: { version: '2.2.0', flow: 'challenge', result: 'failed', eci: '07', liability_shift: false },
    });
  });

  it('passed, then declined by the issuer (4000008400001629): failed with its decline, three_d_secure authenticated', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000008400001629');
    // Act
    const payment = await answered(apiKey, created, 'passed');
    // Assess
    expect(payment).toMatchObject({
      status: 'failed',
      decline_code: 'generic_decline',
      three_d_secure: { version: '2.2.0', flow: 'challenge', result: 'authenticated', eci: '05', liability_shift: true },
    });
  });

  it('a challenge never finished, cancelled by the reconciler after the hour: three_d_secure says the challenge failed', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000000000003220');
    const realNow = clock.now;
    clock.now = () => realNow() + 61 * 60_000;
    // Act
    try {
      const leased = (await expiredOperations(clock.now())).find((l) => l.entity === 'payment' && l.payment.id === created.body.id);
      expect(await reconcileLeased(leased!)).toBe(true);
    } finally {
      clock.now = realNow;
    }
    // Assess: nothing known of it but that it did not pass
    expect((await payments.get(apiKey, created.body.id)).body).toMatchObject({
      status: 'failed',
      decline_code: 'authentication_required',
      three_d_secure: { version: null, flow: 'challenge', result: 'failed', eci: null, liability_shift: false },
    });
  });
});

describe('a routing rule that requires 3-D Secure', () => {
  const eea = {
    name: 'EUR authenticates',
    provider: 'stripe',
    strategy: 'fixed',
    priority: 1,
    conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
  };

  it('challenges a card the issuer would let through frictionless, and the decision says the rule requires it', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const rule = await rules.create(apiKey, { ...eea, three_d_secure: 'required' });
    expect(rule.status, rule.rawBody).toBe(200);
    // Act
    const created = await pay(apiKey, '4000000000003055', { routing: 'rules' });
    const payment = await answered(apiKey, created, 'passed');
    // Assess
    expect(rule.body.three_d_secure).toBe('required');
    expect(created.body).toMatchObject({ status: 'requires_action', provider: 'stripe' });
    expect(created.body.routing_decision.reason).toContain(`Rule "EUR authenticates" (${rule.body.id}, priority 1) matched`);
    expect(created.body.routing_decision.reason).toContain('requires 3-D Secure');
    expect(payment).toMatchObject({ status: 'succeeded', three_d_secure: { flow: 'challenge', result: 'authenticated' } });
  });

  it('set back to automatic, the same card passes frictionless; a rule without it changes nothing', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const rule = await rules.create(apiKey, { ...eea, three_d_secure: 'required' });
    // Act
    const updated = await rules.update(apiKey, rule.body.id, { three_d_secure: 'automatic' });
    const created = await pay(apiKey, '4000000000003055', { routing: 'rules' });
    // Assess
    expect(updated.body.three_d_secure).toBe('automatic');
    expect(created.body).toMatchObject({ status: 'succeeded', three_d_secure: { flow: 'frictionless', result: 'authenticated' } });
    expect(created.body.routing_decision.reason).not.toContain('3-D Secure');
  });

  it('without return_url the create answers 400 naming return_url and the rule; nothing is charged', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const rule = await rules.create(apiKey, { ...eea, three_d_secure: 'required' });
    // Act
    const res = await payments.create(apiKey, { amount: 2500, currency: 'eur', payment_method: card('4000000000003055') });
    // Assess
    expect(res.status, res.rawBody).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'return_url' });
    expect(res.body.error.message).toContain(rule.body.id);
    expect((await payments.list(apiKey)).body.data).toEqual([]);
  });

  it('leaves Braintree out of a smart rule that puts it first, saying why; the simulation says the same', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    await rules.create(apiKey, { ...eea, provider: 'braintree', strategy: 'smart', three_d_secure: 'required' });
    // Act
    const created = await pay(apiKey, '4000000000003055', { routing: 'rules' });
    const simulated = await payments.simulate(apiKey, { amount: 2500, currency: 'eur', routing: 'rules' });
    // Assess
    expect(created.body.status, created.rawBody).toBe('requires_action');
    expect(created.body.provider).not.toBe('braintree');
    expect(created.body.routing_decision.reason).toContain('Braintree was left out');
    expect(simulated.body.provider).not.toBe('braintree');
    expect(simulated.body.routing_decision.reason).toContain('Braintree was left out');
  });
});

describe("the sandbox's Braintree and a card whose issuer asks for authentication", () => {
  const braintreeFirst = { name: 'Braintree first', provider: 'braintree', strategy: 'smart', priority: 1, conditions: [] };

  it('with return_url: Braintree declines authentication_required, and the payment fails over to authenticate the shopper', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    await rules.create(apiKey, braintreeFirst);
    // Act
    const created = await pay(apiKey, '4000000000003220', { routing: 'rules' });
    const payment = await answered(apiKey, created, 'passed');
    // Assess
    expect(created.body.status, created.rawBody).toBe('requires_action');
    expect(created.body.provider).not.toBe('braintree');
    expect(created.body.attempts).toMatchObject([
      { provider: 'braintree', status: 'declined', decline_code: 'authentication_required' },
      { provider: created.body.provider, status: 'requires_action' },
    ]);
    expect(created.body.routing_decision.reason).toContain(
      `Then braintree answered declined authentication_required, which it cannot ask the shopper for (it authenticates in its own client SDK), so the payment failed over to ${created.body.provider}, with 3-D Secure.`,
    );
    expect(payment).toMatchObject({ status: 'succeeded', three_d_secure: { flow: 'challenge', result: 'authenticated' } });
  });

  it('without return_url: declined authentication_required at Braintree, as before; nothing else is tried', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    await rules.create(apiKey, braintreeFirst);
    // Act
    const res = await payments.create(apiKey, { amount: 2500, currency: 'eur', routing: 'rules', payment_method: card('4000000000003220') });
    // Assess
    expect(res.status, res.rawBody).toBe(402);
    expect(res.body.error.decline_code).toBe('authentication_required');
    const payment = (await payments.get(apiKey, res.body.error.payment_id)).body;
    expect(payment).toMatchObject({ provider: 'braintree', attempts: [{ provider: 'braintree', decline_code: 'authentication_required' }] });
  });
});
