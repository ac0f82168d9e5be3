import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler as createRule } from '../../functions/routing/rules/create.ts';
import { chance } from '../../shared/domain/routing-context.ts';
import { providerDeadlines } from '../../shared/providers/index.ts';
import { sandboxSettings } from '../../shared/providers/sandbox.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

const addRule = (key: string, rule: Record<string, unknown>) =>
  invokeHttp(createRule, apiEvent({ method: 'POST', path: '/api/routing/rules', headers: bearer(key), body: rule }));

const realRandom = chance.random;
beforeEach(() => {
  chance.random = () => 0.99; // no exploration: decisions are deterministic
});
const realDeadline = providerDeadlines.authorizeMs;
const realLatency = { ...sandboxSettings.latencyMs };
afterEach(() => {
  chance.random = realRandom;
  sandboxSettings.down.clear();
  sandboxSettings.latencyMs = { ...realLatency };
  providerDeadlines.authorizeMs = realDeadline;
});

describe('routing', () => {
  it('sends EUR to adyen when a merchant rule says so, naming the rule', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const rule = await addRule(apiKey, {
      name: 'EUR to Adyen',
      provider: 'adyen',
      conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
    });
    // Act
    const eur = await payments.create(apiKey, paymentBody({ currency: 'eur' }));
    const usd = await payments.create(apiKey, paymentBody({ currency: 'usd', routing: 'lowest_cost', amount: 100_000 }));
    // Assess
    expect(eur.body.provider).toBe('adyen');
    expect(eur.body.routing_decision).toMatchObject({ strategy: 'rules', alternatives_considered: [] });
    expect(eur.body.routing_decision.reason).toContain(`Rule "EUR to Adyen" (${rule.body.id}`);
    expect(usd.body.routing_decision.strategy).toBe('lowest_cost');
  });

  it('takes a new or changed rule into account on the next payment', async () => {
    const { apiKey } = await newMerchant();
    await payments.create(apiKey, paymentBody());
    await addRule(apiKey, {
      name: 'Big to Braintree',
      provider: 'braintree',
      conditions: [{ field: 'amount', operator: 'greater_than', value: '10000' }],
    });
    const big = await payments.create(apiKey, paymentBody({ amount: 20_000 }));
    const small = await payments.create(apiKey, paymentBody({ amount: 500 }));
    expect(big.body.provider).toBe('braintree');
    expect(small.body.routing_decision.strategy).toBe('smart');
  });

  it('picks the cheapest provider with lowest_cost: adyen for small amounts, braintree for large ones', async () => {
    const { apiKey } = await newMerchant();
    const small = await payments.create(apiKey, paymentBody({ routing: 'lowest_cost', amount: 1000 }));
    const large = await payments.create(apiKey, paymentBody({ routing: 'lowest_cost', amount: 100_000 }));
    expect(small.body.provider).toBe('adyen');
    expect(small.body.routing_decision).toMatchObject({ strategy: 'lowest_cost', alternatives_considered: ['stripe', 'braintree'] });
    expect(small.body.routing_decision.reason).toContain('adyen 41');
    expect(large.body.provider).toBe('braintree');
  });

  it('forces a provider named in routing, with no other candidate', async () => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, paymentBody({ routing: 'braintree' }));
    expect(res.body).toMatchObject({ provider: 'braintree', routing_decision: { strategy: 'forced', alternatives_considered: [] } });
  });

  it('forces a provider over a matching rule, which still routes the payments that name none', async () => {
    // Prepare: every EUR payment goes to adyen by rule
    const { apiKey } = await newMerchant();
    const rule = { name: 'EUR to Adyen', provider: 'adyen', conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }] };
    expect((await addRule(apiKey, rule)).status).toBe(200);
    // Act
    const forced = await payments.create(apiKey, paymentBody({ currency: 'eur', routing: 'stripe' }));
    const routed = await payments.create(apiKey, paymentBody({ currency: 'eur' }));
    // Assess
    expect(forced.body).toMatchObject({ provider: 'stripe', routing_decision: { strategy: 'forced' } });
    expect(routed.body).toMatchObject({ provider: 'adyen', routing_decision: { strategy: 'rules' } });
  });

  it('rotates providers with round_robin', async () => {
    const { apiKey } = await newMerchant();
    const providers = [];
    for (let i = 0; i < 3; i++) providers.push((await payments.create(apiKey, paymentBody({ routing: 'round_robin' }))).body.provider);
    expect(new Set(providers)).toEqual(new Set(['stripe', 'adyen', 'braintree']));
  });

  it('simulates round_robin without taking a turn: each simulation names the provider the next payment gets', async () => {
    const { apiKey } = await newMerchant();
    for (let i = 0; i < 3; i++) {
      const predicted = (await payments.simulate(apiKey, { amount: 2500, currency: 'usd', routing: 'round_robin' })).body.provider;
      const again = (await payments.simulate(apiKey, { amount: 2500, currency: 'usd', routing: 'round_robin' })).body.provider;
      const paid = (await payments.create(apiKey, paymentBody({ routing: 'round_robin' }))).body.provider;
      expect([again, paid]).toEqual([predicted, predicted]);
    }
  });

  it('fails over when the first provider is down, and the decision names it', async () => {
    // Prepare: a smart rule puts stripe first; stripe is down
    const { apiKey } = await newMerchant();
    await addRule(apiKey, { name: 'Stripe first', provider: 'stripe', strategy: 'smart', conditions: [] });
    sandboxSettings.down.add('stripe');
    // Act
    const res = await payments.create(apiKey, paymentBody());
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.provider).not.toBe('stripe');
    expect(res.body.routing_decision.alternatives_considered[0]).toBe('stripe');
    expect(res.body.routing_decision.reason).toContain(`stripe answered provider_down, so the payment failed over to ${res.body.provider}`);
  });

  it('fails over when the first provider is too slow, and nothing is left authorized there', async () => {
    // Prepare: stripe first, and slower than the authorization deadline
    const { apiKey } = await newMerchant();
    await addRule(apiKey, { name: 'Stripe first', provider: 'stripe', strategy: 'smart', conditions: [] });
    providerDeadlines.authorizeMs = 100;
    sandboxSettings.latencyMs.stripe = 5_000;
    // Act
    const res = await payments.create(apiKey, paymentBody());
    // Assess: one payment, at the provider that answered in time
    expect(res.status).toBe(200);
    expect(res.body.provider).not.toBe('stripe');
    expect(res.body.routing_decision.reason).toContain(`stripe answered timeout, so the payment failed over to ${res.body.provider}`);
    const listed = (await payments.list(apiKey)).body;
    expect(listed.data.map((p: { id: string }) => p.id)).toEqual([res.body.id]);
  });

  it('answers 500 and records no payment when every provider is too slow', async () => {
    const { apiKey } = await newMerchant();
    providerDeadlines.authorizeMs = 50;
    for (const p of ['stripe', 'adyen', 'braintree'] as const) sandboxSettings.latencyMs[p] = 5_000;
    const res = await payments.create(apiKey, paymentBody());
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'providers_unavailable' });
    expect((await payments.list(apiKey)).body.total).toBe(0);
  });

  it('does not fail over a hard decline', async () => {
    const { apiKey } = await newMerchant();
    await addRule(apiKey, { name: 'Stripe first', provider: 'stripe', strategy: 'smart', conditions: [] });
    const res = await payments.create(apiKey, paymentBody({}, '4000000000009995'));
    expect(res.status).toBe(402);
    expect((await payments.get(apiKey, res.body.error.payment_id)).body.provider).toBe('stripe');
  });

  it('answers 500 and charges nothing when every provider is down', async () => {
    const { apiKey } = await newMerchant();
    for (const p of ['stripe', 'adyen', 'braintree']) sandboxSettings.down.add(p);
    const res = await payments.create(apiKey, paymentBody());
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({
      type: 'api_error',
      code: 'providers_unavailable',
      message: expect.stringMatching(/^Internal server error: no provider could take the payment \(.*stripe.*\); nothing was charged$/),
    });
    for (const provider of ['stripe', 'adyen', 'braintree']) expect(res.body.error.message).toContain(`${provider} (sandbox) answered provider_down`);
    expect((await payments.list(apiKey, { status: 'succeeded' })).body.total).toBe(0);
  });

  it('lets a failing provider lose its place in smart routing, and shows the scores', async () => {
    // Prepare: 6 payments forced through adyen while it is down
    const { apiKey } = await newMerchant();
    sandboxSettings.down.add('adyen');
    for (let i = 0; i < 6; i++) await payments.create(apiKey, paymentBody({ routing: 'adyen' }));
    sandboxSettings.down.clear();
    // Act
    const decision = await payments.simulate(apiKey, { amount: 2500, currency: 'usd' });
    // Assess
    expect(decision.status).toBe(200);
    expect(decision.body.routing_decision.strategy).toBe('smart');
    expect(decision.body.routing_decision.alternatives_considered.at(-1)).toBe('adyen');
    expect(decision.body.routing_decision.reason).toMatch(/adyen -?\d+\.\d \(approval 56\.3% over 6 recent attempts/);
  });

  it('simulates a decision without card secrets and charges nothing', async () => {
    const { apiKey } = await newMerchant();
    await addRule(apiKey, { name: 'Visa to Stripe', provider: 'stripe', conditions: [{ field: 'card_brand', operator: 'equals', value: 'visa' }] });
    const visa = await payments.simulate(apiKey, {
      amount: 2500,
      currency: 'usd',
      payment_method: { type: 'card', card: { number: '4242424242424242' } },
    });
    const unknownCard = await payments.simulate(apiKey, { amount: 2500, currency: 'usd' });
    expect(visa.body).toMatchObject({ provider: 'stripe', routing_decision: { strategy: 'rules' } });
    expect(unknownCard.body.routing_decision.strategy).toBe('smart');
    expect((await payments.list(apiKey)).body.total).toBe(0);
    const invalid = await payments.simulate(apiKey, { amount: 0, currency: 'usd' });
    expect(invalid.status).toBe(400);
  });
});
