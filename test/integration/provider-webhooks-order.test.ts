import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The reconciler reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('provider-webhooks-order'));
import { handler as getBalance } from '../../functions/balance/get.ts';
import { handler as createConnector } from '../../functions/connectors/create.ts';
import { handler as listDisputes } from '../../functions/disputes/list.ts';
import { handler as listRefunds } from '../../functions/refunds/list.ts';
import { handler as listEvents } from '../../functions/webhooks/events.ts';
import { config } from '../../shared/config.ts';
import { clock } from '../../shared/model/clock.ts';
import { AWAIT_RECHECK_MS } from '../../shared/domain/operations.ts';
import { reconcile } from '../../shared/domain/reconciler.ts';
import type { ProviderName } from '../../shared/providers/types.ts';
import { getRefund as storedRefund, getStoredPayment } from '../../shared/store/payments.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import type { FakeNotification } from '../../infra/local/fakes/types.ts';
import { openOperations } from '../support/faults.ts';
import { deliver, startInboundGateway } from '../support/inbound.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { freshCard, paymentBody, payments } from '../support/payments.ts';

/**
 * Notifications arrive twice, late and in any order; some never arrive. Whatever the order, a payment's refunds and
 * disputes end in the same state with the same money, each outbound event sent once; with no notification at all,
 * the reconciler asks the provider and settles what was pending.
 */
let fakes: ProviderFakes;
let gateway: Awaited<ReturnType<typeof startInboundGateway>>;
beforeAll(async () => {
  [fakes, gateway] = await Promise.all([startProviderFakes(), startInboundGateway()]);
  Object.assign(config, fakes.env);
});
afterAll(async () => {
  await Promise.all([fakes.close(), gateway.close()]);
});

const get = (handler: Parameters<typeof invokeHttp>[0], key: string, path: string, query?: Record<string, string>) =>
  invokeHttp(handler, apiEvent({ method: 'GET', path, headers: bearer(key), query }));

async function connected(provider: ProviderName, notify = true) {
  const { apiKey, merchantId } = await newMerchant();
  const res = await invokeHttp(
    createConnector,
    apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body: { provider, credentials: fakes.credentials[provider] } }),
  );
  if (notify) fakes[provider].notifications.register(gateway.urlFor(res.body.id));
  fakes[provider].notifications.hold(false);
  return { apiKey, merchantId, fake: fakes[provider] };
}

/**
 * One payment's life at `provider`, its notifications held: captured (10,000), two refunds (3,000 and 2,000), the
 * second failing at settlement, then a dispute opened and won. Answers the held notifications.
 */
async function heldScenario(provider: ProviderName) {
  const account = await connected(provider);
  const fake = account.fake;
  fake.notifications.hold(true);
  const before = fake.notifications.all().length;
  const paid = await payments.create(account.apiKey, paymentBody({ amount: 10_000, routing: provider }, freshCard()));
  await payments.capture(account.apiKey, paid.body.id);
  await payments.refund(account.apiKey, paid.body.id, { amount: 3_000 });
  const second = await payments.refund(account.apiKey, paid.body.id, { amount: 2_000 });
  fake.failRefund((await storedRefund(paid.body.id, second.body.refund_id))!.provider_reference!);
  const dispute = fake.openDispute((await getStoredPayment(testOwner(account.merchantId), paid.body.id))!.provider_reference!);
  fake.closeDispute(dispute, 'won');
  const held = fake.notifications.all().slice(before);
  fake.notifications.hold(false);
  return { ...account, paymentId: paid.body.id as string, held };
}

/** What a merchant can see of the payment's money, once every notification was handled. */
async function finalState(key: string, paymentId: string) {
  const payment = (await payments.get(key, paymentId)).body;
  const refunds = (await get(listRefunds, key, '/api/refunds', { payment_id: paymentId })).body.data;
  const disputes = (await get(listDisputes, key, '/api/disputes')).body.data;
  const balance = (await get(getBalance, key, '/api/balance')).body;
  const events = (await get(listEvents, key, '/api/webhooks/events', { limit: '100' })).body.data.map((e: { event: string }) => e.event).sort();
  return {
    payment: { status: payment.status, amount_captured: payment.amount_captured, amount_refunded: payment.amount_refunded },
    refunds: refunds.map((r: { amount: number; status: string }) => `${r.amount} ${r.status}`).sort(),
    disputes: disputes.map((d: { amount: number; status: string }) => `${d.amount} ${d.status}`),
    funds: [...balance.available, ...balance.pending].reduce((n: number, f: { amount: number }) => n + f.amount, 0),
    closing: events.filter((e: string) => e === 'refund.failed' || e === 'dispute.closed'),
  };
}

const EXPECTED = {
  payment: { status: 'refunded', amount_captured: 10_000, amount_refunded: 3_000 },
  refunds: ['2000 failed', '3000 succeeded'],
  disputes: [expect.stringMatching(/^\d+ won$/)],
  funds: 7_000,
  closing: ['dispute.closed', 'refund.failed'],
};

const send = (n: FakeNotification) => deliver(n.url, n.headers, n.body);

// First: a later test's held notifications would otherwise be among those a flush sends again.
describe('with notifications lost', () => {
  it('stripe: the reconciler asks the provider and settles every pending refund', async () => {
    // Prepare
    const { apiKey, merchantId, fake } = await connected('stripe', false);
    fakes.stripe.refundsPending(true);
    const paid = await payments.create(apiKey, paymentBody({ amount: 8_000, routing: 'stripe' }, freshCard()));
    await payments.capture(apiKey, paid.body.id);
    const kept = await payments.refund(apiKey, paid.body.id, { amount: 1_000 });
    const failing = await payments.refund(apiKey, paid.body.id, { amount: 500 });
    fakes.stripe.refundsPending(false);
    const pending = (await get(listRefunds, apiKey, '/api/refunds', { payment_id: paid.body.id })).body.data.map((r: { status: string }) => r.status);
    fakes.stripe.settleRefund((await storedRefund(paid.body.id, kept.body.refund_id))!.provider_reference!);
    fake.failRefund((await storedRefund(paid.body.id, failing.body.refund_id))!.provider_reference!);
    // Act
    await reconcile(clock.now() + AWAIT_RECHECK_MS + 1_000);
    // Assess
    expect(pending).toEqual(['pending', 'pending']);
    const refunds = (await get(listRefunds, apiKey, '/api/refunds', { payment_id: paid.body.id })).body.data;
    expect(refunds.map((r: { amount: number; status: string }) => `${r.amount} ${r.status}`).sort()).toEqual(['1000 succeeded', '500 failed']);
    expect((await payments.get(apiKey, paid.body.id)).body.amount_refunded).toBe(1_000);
    expect(await openOperations(merchantId)).toEqual([]);
  });

  it('adyen: a notification our endpoint missed is sent again by the provider and settles the refund', async () => {
    // Prepare: Checkout has no read of a refund's outcome, so Adyen's own retry is what finishes it.
    const { apiKey, merchantId, fake } = await connected('adyen');
    fake.notifications.hold(true);
    const paid = await payments.create(apiKey, paymentBody({ amount: 4_000, routing: 'adyen' }, freshCard()));
    await payments.capture(apiKey, paid.body.id);
    await payments.refund(apiKey, paid.body.id, { amount: 4_000 });
    const unsettled = (await get(listRefunds, apiKey, '/api/refunds', { payment_id: paid.body.id })).body.data[0].status;
    // Act
    fake.notifications.hold(false);
    await fake.notifications.flush();
    // Assess
    expect(unsettled).toBe('pending');
    expect((await get(listRefunds, apiKey, '/api/refunds', { payment_id: paid.body.id })).body.data[0].status).toBe('succeeded');
    expect(await openOperations(merchantId)).toEqual([]);
  });
});

describe.each(['stripe', 'adyen', 'braintree'] as const)('%s notifications twice and out of order', (provider) => {
  it('every order of every notification sent twice converges to the same state, each event once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ noNaN: true }), { minLength: 64, maxLength: 64 }), async (keys) => {
        // Prepare
        const { apiKey, paymentId, held } = await heldScenario(provider);
        const twice = [...held, ...held];
        const order = twice.map((n, i) => ({ n, key: keys[i % keys.length]! + i / 1e6 })).sort((a, b) => a.key - b.key);
        // Act
        for (const { n } of order) expect((await send(n)).status).toBe(200);
        // Assess
        expect(await finalState(apiKey, paymentId)).toEqual(EXPECTED);
      }),
      { numRuns: 5 },
    );
  }, 270_000);

  it('in reverse order, too', async () => {
    // Prepare
    const { apiKey, paymentId, held } = await heldScenario(provider);
    // Act
    for (const n of [...held].reverse()) await send(n);
    for (const n of held) await send(n);
    // Assess
    expect(await finalState(apiKey, paymentId)).toEqual(EXPECTED);
  });
});
