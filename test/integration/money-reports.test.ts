import { afterEach, describe, expect, it, vi } from 'vitest';
// The daily settlement reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('money-reports'));
import { handler as overviewFn } from '../../functions/analytics/overview.ts';
import { handler as providersFn } from '../../functions/analytics/providers.ts';
import { handler as revenueFn } from '../../functions/analytics/revenue.ts';
import { handler as balanceFn } from '../../functions/balance/get.ts';
import { handler as settlementGetFn } from '../../functions/settlements/get.ts';
import { handler as settlementsFn } from '../../functions/settlements/list.ts';
import { handler as createRule } from '../../functions/routing/rules/create.ts';
import { handler as dailyJob } from '../../functions/workers/daily-settlement.ts';
import { clock } from '../../shared/model/clock.ts';
import { sandboxSettings } from '../../shared/providers/sandbox.ts';
import { apiEvent, fakeContext, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';

const get = (handler: typeof balanceFn, key: string, path: string, query: Record<string, string> = {}) =>
  invokeHttp(handler, apiEvent({ method: 'GET', path, headers: bearer(key), query }));
const api = {
  balance: (key: string) => get(balanceFn, key, '/api/balance'),
  settlements: (key: string, query?: Record<string, string>) => get(settlementsFn, key, '/api/settlements', query),
  settlement: (key: string, id: string) => get(settlementGetFn, key, `/api/settlements/${id}`),
  overview: (key: string, query?: Record<string, string>) => get(overviewFn, key, '/api/analytics', query),
  revenue: (key: string, query?: Record<string, string>) => get(revenueFn, key, '/api/analytics/revenue', query),
  providers: (key: string, query?: Record<string, string>) => get(providersFn, key, '/api/analytics/providers', query),
};
const rules = {
  create: (key: string, rule: unknown) =>
    invokeHttp(createRule, apiEvent({ method: 'POST', path: '/api/routing/rules', headers: bearer(key), body: rule })),
};

const realNow = clock.now;
const at = (day: string, time = '12:00:00') => {
  clock.now = () => Date.parse(`${day}T${time}.000Z`);
};
afterEach(() => {
  clock.now = realNow;
  sandboxSettings.latencyMs = {};
  sandboxSettings.down.clear();
});

const D = { minus2: '2026-06-08', minus1: '2026-06-09', today: '2026-06-10', plus1: '2026-06-11', plus2: '2026-06-12' };

async function pay(key: string, amount: number, currency: string, provider: string, card?: string) {
  const res = await payments.create(key, paymentBody({ amount, currency, routing: provider }, card));
  return res.body.id as string;
}

describe('balance, settlements and analytics', () => {
  it('add up, by hand, across days, currencies and providers, and settle without duplicates', async () => {
    // Prepare: payments over three days (see each line), with known provider latencies
    const { apiKey } = await newMerchant();
    sandboxSettings.latencyMs = { stripe: 20, adyen: 40, braintree: 60 };
    at(D.minus2);
    await payments.capture(apiKey, await pay(apiKey, 1000, 'USD', 'stripe')); // +1000 captured
    await payments.capture(apiKey, await pay(apiKey, 2000, 'USD', 'adyen'), { amount: 1500 }); // +1500 captured
    await payments.create(apiKey, paymentBody({ amount: 700, currency: 'USD', routing: 'braintree' }, CARDS.genericDecline)); // declined
    at(D.minus1);
    const usd3000 = await pay(apiKey, 3000, 'USD', 'braintree');
    await payments.capture(apiKey, usd3000); // +3000
    await payments.refund(apiKey, usd3000, { amount: 500 }); // −500
    await payments.capture(apiKey, await pay(apiKey, 4000, 'EUR', 'adyen')); // EUR +4000
    at(D.today);
    await pay(apiKey, 500, 'USD', 'stripe'); // authorized only
    const eur1000 = await pay(apiKey, 1000, 'EUR', 'stripe');
    await payments.capture(apiKey, eur1000); // EUR +1000
    await payments.refund(apiKey, eur1000); // EUR −1000

    // Assess analytics (today is D.today)
    const overview = await api.overview(apiKey, { period: '7d' });
    expect(overview.body).toMatchObject({ volume: 6500, transactions: 4, attempts: 5, approval_rate: 80, currency: 'USD', period: '7d' });
    expect((await api.overview(apiKey, { period: '7d', currency: 'eur' })).body).toMatchObject({
      volume: 5000,
      transactions: 2,
      approval_rate: 100,
      currency: 'EUR',
    });
    expect((await api.overview(apiKey, { period: '24h', currency: 'USD' })).body).toMatchObject({ volume: 500, transactions: 1, approval_rate: 100 });

    const revenue = await api.revenue(apiKey, { period: '7d' });
    expect(revenue.body.currency).toBe('USD');
    expect(revenue.body.total).toBe(5000);
    expect(revenue.body.by_day).toEqual([
      { date: '2026-06-04', amount: 0, fees: 0 },
      { date: '2026-06-05', amount: 0, fees: 0 },
      { date: '2026-06-06', amount: 0, fees: 0 },
      { date: '2026-06-07', amount: 0, fees: 0 },
      { date: D.minus2, amount: 2500, fees: 0 },
      { date: D.minus1, amount: 2500, fees: 0 },
      { date: D.today, amount: 0, fees: 0 },
    ]);
    const eurRevenue = await api.revenue(apiKey, { period: '30d', currency: 'EUR' });
    expect(eurRevenue.body.total).toBe(4000);
    expect(eurRevenue.body.by_day).toHaveLength(30);

    const providers = (await api.providers(apiKey, { period: '7d' })).body.data;
    const byName = Object.fromEntries(providers.map((p: { provider: string }) => [p.provider, p]));
    expect(byName.stripe).toMatchObject({ volume: 1500, attempts: 2, approval_rate: 100 });
    expect(byName.adyen).toMatchObject({ volume: 2000, attempts: 1, approval_rate: 100 });
    expect(byName.braintree).toMatchObject({ volume: 3000, attempts: 2, approval_rate: 50 });
    expect(byName.stripe.latency).toBeGreaterThanOrEqual(20);
    expect(byName.adyen.latency).toBeGreaterThanOrEqual(40);
    expect(byName.braintree.latency).toBeGreaterThanOrEqual(60);

    // Balance before the daily job: everything pending (refunds took from pending, newest first)
    expect((await api.balance(apiKey)).body).toEqual({
      object: 'balance',
      livemode: false,
      available: [
        { amount: 0, currency: 'EUR' },
        { amount: 0, currency: 'USD' },
      ],
      pending: [
        { amount: 4000, currency: 'EUR' },
        { amount: 5000, currency: 'USD' },
      ],
    });

    // Act + Assess: the daily job, twice today
    const reconcile = async (usdNet: number, eurNet: number) => {
      const balance = (await api.balance(apiKey)).body;
      const settled = (await api.settlements(apiKey, { limit: '100' })).body.data;
      for (const [currency, net] of [
        ['USD', usdNet],
        ['EUR', eurNet],
      ] as const) {
        const sum = (list: Array<{ amount: number; currency: string }>) =>
          list.filter((x) => x.currency === currency).reduce((n, x) => n + x.amount, 0);
        expect(sum(balance.pending) + sum(balance.available) + sum(settled), `reconciles ${currency}`).toBe(net);
      }
    };
    await reconcile(5000, 4000);
    await dailyJob({}, fakeContext());
    await dailyJob({}, fakeContext());
    const first = (await api.settlements(apiKey)).body.data;
    expect(first).toEqual([expect.objectContaining({ amount: 2500, currency: 'USD', status: 'pending', arrival_date: D.plus2, transactions: 2 })]);
    expect((await api.settlement(apiKey, first[0].id)).body).toMatchObject({ id: first[0].id, amount: 2500, transactions: 2 });
    expect((await api.balance(apiKey)).body.pending).toEqual([
      { amount: 4000, currency: 'EUR' },
      { amount: 2500, currency: 'USD' },
    ]);
    await reconcile(5000, 4000);

    at(D.plus1, '02:00:00');
    await dailyJob({}, fakeContext());
    const second = (await api.settlements(apiKey, { limit: '100' })).body.data;
    expect(second.map((s: { amount: number; currency: string }) => `${s.amount} ${s.currency}`).sort()).toEqual(['2500 USD', '2500 USD', '4000 EUR']);
    await reconcile(5000, 4000);

    at(D.plus2, '02:00:00');
    await dailyJob({}, fakeContext());
    const paid = await api.settlements(apiKey, { status: 'paid' });
    expect(paid.body.data).toEqual([expect.objectContaining({ id: first[0].id, status: 'paid', paid_at: expect.any(String) })]);
    expect((await api.settlements(apiKey, { status: 'pending' })).body.data).toHaveLength(2);
    await reconcile(5000, 4000);
  }, 180_000); // about 40 requests in sequence

  it('keeps exact counters under 50 parallel captures', async () => {
    const { apiKey } = await newMerchant();
    const ids = [];
    for (let i = 0; i < 50; i++) ids.push(await pay(apiKey, 100 + i, 'USD', 'adyen'));
    const answers = await Promise.all(ids.map((id) => payments.capture(apiKey, id)));
    const expected = ids.reduce((n, _, i) => n + 100 + i, 0);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect((await api.balance(apiKey)).body.pending).toEqual([{ amount: expected, currency: 'USD' }]);
    expect((await api.revenue(apiKey, { period: '24h' })).body.total).toBe(expected);
    expect((await api.overview(apiKey, { period: '24h' })).body).toMatchObject({ volume: expected, transactions: 50, approval_rate: 100 });
  });

  it('counts a failover as one payment and an attempt at each provider tried', async () => {
    // Prepare: a rule that puts stripe first, and stripe down
    const merchant = await newMerchant();
    at(D.today);
    await rules.create(merchant.apiKey, { name: 'Stripe first', provider: 'stripe', strategy: 'smart', conditions: [] });
    sandboxSettings.down.add('stripe');
    // Act
    const made = await payments.create(merchant.apiKey, paymentBody({ amount: 1200, currency: 'USD' }));
    const [overview, providers] = await Promise.all([
      api.overview(merchant.apiKey, { period: '24h' }),
      api.providers(merchant.apiKey, { period: '24h' }),
    ]);
    // Assess: one payment, approved by the provider it failed over to; stripe's failed attempt
    expect(made.status).toBe(200);
    const to = made.body.provider as string;
    expect(to).not.toBe('stripe');
    expect(overview.body).toMatchObject({ attempts: 1, transactions: 1, volume: 1200, approval_rate: 100, currency: 'USD' });
    const byName = Object.fromEntries(providers.body.data.map((p: { provider: string }) => [p.provider, p]));
    expect(byName.stripe).toMatchObject({ attempts: 1, volume: 0, approval_rate: 0 });
    expect(byName[to]).toMatchObject({ attempts: 1, volume: 1200, approval_rate: 100 });
  });

  it('gives a merchant with no payments zeros, not errors', async () => {
    const { apiKey } = await newMerchant();
    expect((await api.balance(apiKey)).body).toEqual({ object: 'balance', livemode: false, available: [], pending: [] });
    expect((await api.overview(apiKey)).body).toMatchObject({ volume: 0, transactions: 0, approval_rate: 0, period: '30d' });
    const revenue = (await api.revenue(apiKey)).body;
    expect(revenue.total).toBe(0);
    expect(revenue.by_day).toHaveLength(30);
    expect(revenue.by_day.every((d: { amount: number }) => d.amount === 0)).toBe(true);
    expect((await api.providers(apiKey)).body.data).toEqual([
      { provider: 'stripe', volume: 0, attempts: 0, approval_rate: 0, latency: 0 },
      { provider: 'adyen', volume: 0, attempts: 0, approval_rate: 0, latency: 0 },
      { provider: 'braintree', volume: 0, attempts: 0, approval_rate: 0, latency: 0 },
    ]);
    expect((await api.settlements(apiKey)).body).toEqual({ object: 'list', data: [], has_more: false });
  });

  it.each([
    [{ period: '1y' }, 'period'],
    [{ currency: 'XYZ' }, 'currency'],
  ])('answers 400 to the analytics query %o', async (query, param) => {
    const { apiKey } = await newMerchant();
    const res = await api.overview(apiKey, query);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('answers 404 for an unknown or malformed settlement id and 400 for a bad status filter', async () => {
    const { apiKey } = await newMerchant();
    expect((await api.settlement(apiKey, 'set_01jdxq3m5n6p7r8s9t0v1w2x3y')).status).toBe(404);
    expect((await api.settlement(apiKey, 'set_nope')).status).toBe(404);
    expect((await api.settlements(apiKey, { status: 'lost' })).status).toBe(400);
  });
});
