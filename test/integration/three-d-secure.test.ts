import { describe, expect, it, vi } from 'vitest';
// The reconciler's query of expired leases reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('three-d-secure'));
import { handler as handOff } from '../../functions/hosted/3ds-hand-off.ts';
import { handler as returned } from '../../functions/hosted/3ds-return.ts';
import { clock } from '../../shared/model/clock.ts';
import { reconcileLeased } from '../../shared/domain/reconciler.ts';
import { expiredOperations } from '../../shared/store/leases.ts';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { newMerchant } from '../support/merchant.ts';
import { payments } from '../support/payments.ts';
import { allowShop, follow, sandboxChallenge as challenge } from '../support/three-d-secure.ts';

const RETURN_URL = 'https://shop.example/checkout/done?order=42';
const heldFor = (paymentId: string) => [...sandboxBooks.authorizations.values()].filter((a) => a.paymentId === paymentId);

/** A payment the shopper comes back from to RETURN_URL, on the shop the merchant lists in its checkout_origins. */
async function pay(key: string, number: string, extra: Record<string, unknown> = {}) {
  await allowShop(key);
  return payments.create(key, {
    amount: 2500,
    currency: 'eur',
    routing: 'stripe',
    return_url: RETURN_URL,
    payment_method: { type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc: '123' } },
    ...extra,
  });
}

describe('3-D Secure at the sandbox', () => {
  it('a challenge passed: requires_action with a next action, then succeeded with the result, the shopper back at the merchant', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const created = await pay(apiKey, '4000000000003220');
    // Assess: waiting for the shopper
    expect(created.status, created.rawBody).toBe(200);
    expect(created.body).toMatchObject({
      status: 'requires_action',
      next_action: {
        type: 'redirect_to_url',
        redirect_to_url: {
          url: expect.stringMatching(`/hosted/3ds/${created.body.id}\\?expires=\\d+&signature=[0-9a-f]{64}$`),
          return_url: RETURN_URL,
        },
      },
      three_d_secure: null,
    });
    expect(heldFor(created.body.id)).toEqual([]);

    // Act: the shopper passes and comes back
    const back = await follow(returned, await challenge(created.body.next_action.redirect_to_url.url, 'passed'));
    // Assess
    expect(back).toBe(`https://shop.example/checkout/done?order=42&payment_id=${created.body.id}`);
    const payment = (await payments.get(apiKey, created.body.id)).body;
    expect(payment).toMatchObject({
      status: 'succeeded',
      next_action: null,
      three_d_secure: { flow: 'challenge', result: 'authenticated', eci: '05', liability_shift: true },
    });
    expect(heldFor(created.body.id)).toMatchObject([{ state: 'authorized', amount: 2500 }]);
  });

  it('a challenge failed: failed authentication_required, nothing held; a second return changes nothing', async () => {
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000002760003184');
    const returnPage = await challenge(created.body.next_action.redirect_to_url.url, 'failed');
    await follow(returned, returnPage);
    await follow(returned, returnPage);
    const payment = (await payments.get(apiKey, created.body.id)).body;
    expect(payment).toMatchObject({ status: 'failed', decline_code: 'authentication_required' });
    expect(heldFor(created.body.id)).toEqual([]);
  });

  it('two returns at once authorize once', async () => {
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000000000003220');
    const returnPage = await challenge(created.body.next_action.redirect_to_url.url, 'passed');
    const [a, b] = await Promise.all([follow(returned, returnPage), follow(returned, returnPage)]);
    expect(a).toBe(b);
    expect((await payments.get(apiKey, created.body.id)).body.status).toBe('succeeded');
    expect(heldFor(created.body.id)).toHaveLength(1);
  });

  it('frictionless: succeeded at once with the result; without return_url a challenging card declines as before', async () => {
    const { apiKey } = await newMerchant();
    const frictionless = await pay(apiKey, '4000000000003055');
    expect(frictionless.body).toMatchObject({ status: 'succeeded', three_d_secure: { flow: 'frictionless', result: 'authenticated' } });
    const without = await payments.create(apiKey, {
      amount: 2500,
      currency: 'eur',
      routing: 'stripe',
      payment_method: { type: 'card', card: { number: '4000000000003220', exp_month: 12, exp_year: 2034, cvc: '123' } },
    });
    expect(without.status).toBe(402);
    expect(without.body.error.decline_code).toBe('authentication_required');
  });

  it('a challenge abandoned for an hour is cancelled by the reconciler: failed authentication_required', async () => {
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000000000003220');
    const realNow = clock.now;
    clock.now = () => realNow() + 61 * 60_000;
    try {
      const leased = (await expiredOperations(clock.now())).find((l) => l.entity === 'payment' && l.payment.id === created.body.id);
      expect(leased).toBeDefined();
      expect(await reconcileLeased(leased!)).toBe(true);
    } finally {
      clock.now = realNow;
    }
    expect((await payments.get(apiKey, created.body.id)).body).toMatchObject({ status: 'failed', decline_code: 'authentication_required' });
  });

  it('a forged or missing hand-off signature answers 404, a page the shopper can read', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000000000003220');
    // Act
    const res = await invokeHttp(handOff, apiEvent({ path: `/hosted/3ds/${created.body.id}?signature=${'0'.repeat(64)}` }));
    // Assess
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.rawBody).toMatch(/<title>Payment page unavailable<\/title>.*<p role="alert">[^<]+<\/p>/);
    // none is left waiting for a reconciler run of another test to cancel
    expect((await payments.void(apiKey, created.body.id)).body.status).toBe('voided');
  });
});

describe('routing a payment that must authenticate', () => {
  it('leaves Braintree out and says why; with Braintree alone answers 400 naming three_d_secure', async () => {
    const { apiKey } = await newMerchant();
    const required = { three_d_secure: 'required' };
    const smart = await pay(apiKey, '4000000000003055', { ...required, routing: 'smart' });
    expect(smart.status, smart.rawBody).toBe(200);
    expect(smart.body.provider).not.toBe('braintree');
    const forced = await pay(apiKey, '4000000000003055', { ...required, routing: 'braintree' });
    expect(forced.status).toBe(400);
    expect(forced.body.error).toMatchObject({ code: 'parameter_invalid', param: 'three_d_secure' });
  });

  it('three_d_secure required without return_url answers 400 naming return_url', async () => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, {
      amount: 2500,
      currency: 'eur',
      three_d_secure: 'required',
      payment_method: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'return_url' });
  });
});

describe('a void while the shopper authenticates', () => {
  it('voids the payment; the shopper coming back afterwards changes nothing and is sent to the merchant', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = await pay(apiKey, '4000000000003220');
    const returnPage = await challenge(created.body.next_action.redirect_to_url.url, 'passed');
    // Act
    const voided = await payments.void(apiKey, created.body.id);
    const back = await follow(returned, returnPage);
    // Assess
    expect(voided.status, voided.rawBody).toBe(200);
    expect(voided.body).toMatchObject({ status: 'voided', next_action: null });
    expect(back).toContain(`payment_id=${created.body.id}`);
    expect((await payments.get(apiKey, created.body.id)).body.status).toBe('voided');
    expect(heldFor(created.body.id)).toEqual([]);
    expect(await follow(handOff, created.body.next_action.redirect_to_url.url)).toContain(`payment_id=${created.body.id}`);
  });
});
