import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// Reads the table's stream: a table of its own with one (the suite's shared table has none).
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('modes', { stream: true }));
import { handler as overview } from '../../functions/analytics/overview.ts';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as balance } from '../../functions/balance/get.ts';
import { handler as createConnector } from '../../functions/connectors/create.ts';
import { handler as reconcile } from '../../functions/connectors/reconcile.ts';
import { handler as getConnector } from '../../functions/connectors/get.ts';
import { handler as listConnectors } from '../../functions/connectors/list.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as getCustomer } from '../../functions/customers/get.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { handler as updateCustomer } from '../../functions/customers/update.ts';
import { handler as getDispute } from '../../functions/disputes/get.ts';
import { handler as listDisputes } from '../../functions/disputes/list.ts';
import { handler as createInvoice } from '../../functions/invoices/create.ts';
import { handler as getInvoice } from '../../functions/invoices/get.ts';
import { handler as listInvoices } from '../../functions/invoices/list.ts';
import { handler as markPaid } from '../../functions/invoices/mark-paid.ts';
import { handler as listPayments } from '../../functions/payments/list.ts';
import { handler as timeline } from '../../functions/payments/timeline.ts';
import { handler as getRefund } from '../../functions/refunds/get.ts';
import { handler as listRefunds } from '../../functions/refunds/list.ts';
import { handler as createRule } from '../../functions/routing/rules/create.ts';
import { handler as listRules } from '../../functions/routing/rules/list.ts';
import { handler as updateRule } from '../../functions/routing/rules/update.ts';
import { handler as getSettlement } from '../../functions/settlements/get.ts';
import { handler as listSettlements } from '../../functions/settlements/list.ts';
import { handler as createSubscription } from '../../functions/subscriptions/create.ts';
import { handler as listSubscriptions } from '../../functions/subscriptions/list.ts';
import { handler as pauseSubscription } from '../../functions/subscriptions/pause.ts';
import { handler as openDispute } from '../../functions/test-helpers/dispute.ts';
import { handler as configureWebhook } from '../../functions/webhooks/configure.ts';
import { handler as deleteWebhook } from '../../functions/webhooks/delete.ts';
import { handler as deliveries } from '../../functions/webhooks/events.ts';
import { handler as listWebhooks } from '../../functions/webhooks/list.ts';
import { handler as deliver } from '../../functions/workers/webhook-delivery.ts';
import { config } from '../../shared/config.ts';
import { addDays } from '../../shared/model/billing-dates.ts';
import { clock } from '../../shared/model/clock.ts';
import { HOLD_DAYS, settleMerchant } from '../../shared/domain/settlements.ts';
import { eventsQueue, type EventsMessage } from '../../shared/events/queue.ts';
import { dayOf } from '../../shared/store/ledger.ts';
import { STRIPE_FAKE_LIVE_KEY } from '../../infra/local/fakes/stripe/server.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { apiEvent, fakeContext, type HttpResult, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { CARDS, freshCard, paymentBody, payments } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';
import { streamEvents } from '../support/stream.ts';

/**
 * Test and live apart (docs/api.md "Credentials and modes"): one merchant's test objects and live objects never meet. Each
 * mode gets the same kinds of objects; then every list, read, change, counter, sequence and webhook delivery is asked
 * with each mode's key: it sees its own mode's objects only, and the other mode's answer 404 as if absent.
 */
type Handler = Parameters<typeof invokeHttp>[0];
const call = (handler: Handler, key: string, method: string, path: string, options: { body?: unknown; query?: Record<string, string> } = {}) =>
  invokeHttp(handler, apiEvent({ method, path, headers: bearer(key), ...options }));
const ids = (res: HttpResult): string[] => res.body.data.map((o: { id: string }) => o.id);

type Mode = 'test' | 'live';
interface World {
  key: string;
  customer: string;
  payment: string;
  refund: string;
  invoice: { id: string; number: string };
  subscription: string;
  rule: string;
  webhook: { id: string; secret: string };
  connector?: string;
  dispute?: string;
  settlement: string;
  balance: HttpResult;
  analytics: HttpResult;
}

let fakes: ProviderFakes;
const receivers: Record<Mode, Awaited<ReturnType<typeof startReceiver>>> = {} as never;
const world: Record<Mode, World> = {} as never;
const queued: EventsMessage[] = [];

/** The objects of one mode, made with its key; `amount` tells the modes' money apart. */
async function populate(mode: Mode, key: string, amount: number): Promise<World> {
  const webhook = (await call(configureWebhook, key, 'POST', '/api/webhooks/configure', { body: { url: receivers[mode].url, events: ['*'] } })).body;
  const connector =
    mode === 'live'
      ? await call(createConnector, key, 'POST', '/api/connectors', {
          body: { provider: 'stripe', credentials: { secret_key: STRIPE_FAKE_LIVE_KEY } },
        })
      : undefined;
  const customer = (await call(createCustomer, key, 'POST', '/api/customers', { body: { email: `${mode}@example.com`, name: mode } })).body.id;
  const paid = await payments.create(
    key,
    paymentBody({ amount, currency: 'USD', customer: { email: `${mode}@example.com` } }, mode === 'live' ? CARDS.approved : freshCard()),
  );
  expect(paid.status, `${mode} payment`).toBe(200);
  await payments.capture(key, paid.body.id);
  const refund = (await payments.refund(key, paid.body.id, { amount: 1_000 })).body.refund_id;
  let dispute: string | undefined;
  if (mode === 'test') {
    // a EUR payment disputed at once (its money nets to nothing in the balance; the USD figures stay readable)
    const disputed = await payments.create(key, paymentBody({ amount: 4_000, currency: 'EUR' }, freshCard()));
    await payments.capture(key, disputed.body.id);
    dispute = (await call(openDispute, key, 'POST', `/api/test_helpers/payments/${disputed.body.id}/dispute`, { body: {} })).body.id;
  }
  const invoice = (
    await call(createInvoice, key, 'POST', '/api/invoices', {
      body: { customer_id: customer, items: [{ name: 'Work', amount: 5_000, quantity: 1 }], currency: 'USD', due_date: '2030-01-31', tax_rate: 0 },
    })
  ).body;
  const subscription = (
    await call(createSubscription, key, 'POST', '/api/subscriptions', {
      body: { customer_id: customer, plan: 'Pro', amount: 900, currency: 'USD', interval: 'month' },
    })
  ).body.id;
  const rule = (
    await call(createRule, key, 'POST', '/api/routing/rules', {
      body: { name: `${mode} rule`, provider: 'stripe', strategy: 'fixed', priority: 5, conditions: [] },
    })
  ).body.id;
  return {
    key,
    customer,
    payment: paid.body.id,
    refund,
    invoice: { id: invoice.id, number: invoice.number },
    subscription,
    rule,
    webhook: { id: webhook.id, secret: webhook.secret },
    connector: connector?.body.id,
    dispute,
    settlement: '',
    balance: await call(balance, key, 'GET', '/api/balance'),
    analytics: await call(overview, key, 'GET', '/api/analytics', { query: { period: '24h', currency: 'USD' } }),
  };
}

beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
  receivers.test = await startReceiver();
  receivers.live = await startReceiver();
  // Every event's queue message is kept, and delivered after both modes are made (by the worker, as SQS would).
  eventsQueue.send = async (messages) => {
    queued.push(...messages);
  };
  const { apiKey, merchantId } = await newMerchant();
  const live = await invokeHttp(
    createKey,
    apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
  );
  world.test = await populate('test', apiKey, 3_000);
  world.live = await populate('live', live.body.key, 7_000);
  // One settlement per mode: the daily job's of the test mode's sandbox money, on the day its captures are released;
  // the live Stripe account's payout, reconciled
  await settleMerchant({ merchant_id: merchantId, livemode: false }, addDays(dayOf(new Date(clock.now()).toISOString()), HOLD_DAYS));
  fakes.stripe.payOut({}, STRIPE_FAKE_LIVE_KEY);
  expect((await call(reconcile, world.live.key, 'POST', `/api/connectors/${world.live.connector}/reconcile`)).status).toBe(200);
  for (const mode of ['test', 'live'] as const) {
    world[mode].settlement = ids(await call(listSettlements, world[mode].key, 'GET', '/api/settlements'))[0] ?? '';
  }
  await streamEvents(merchantId);
}, 180_000);

afterAll(async () => {
  await Promise.all([fakes.close(), receivers.test.close(), receivers.live.close()]);
});

const other = (mode: Mode): Mode => (mode === 'test' ? 'live' : 'test');

describe.each(['test', 'live'] as const)('with a %s key', (mode) => {
  it('every list shows its own mode only', async () => {
    // Prepare
    const mine = world[mode];
    const theirs = world[other(mode)];
    const lists: Array<[string, Handler, string, string[], string[]]> = [
      ['customers', listCustomers, '/api/customers', [mine.customer], [theirs.customer]],
      ['payments', listPayments, '/api/payments/list', [mine.payment], [theirs.payment]],
      ['refunds', listRefunds, '/api/refunds', [mine.refund], [theirs.refund]],
      ['invoices', listInvoices, '/api/invoices', [mine.invoice.id], [theirs.invoice.id]],
      ['subscriptions', listSubscriptions, '/api/subscriptions', [mine.subscription], [theirs.subscription]],
      ['rules', listRules, '/api/routing/rules', [mine.rule], [theirs.rule]],
      ['webhooks', listWebhooks, '/api/webhooks', [mine.webhook.id], [theirs.webhook.id]],
      ['settlements', listSettlements, '/api/settlements', [mine.settlement], [theirs.settlement]],
      ['disputes', listDisputes, '/api/disputes', mine.dispute ? [mine.dispute] : [], theirs.dispute ? [theirs.dispute] : []],
      ['connectors', listConnectors, '/api/connectors', mine.connector ? [mine.connector] : [], theirs.connector ? [theirs.connector] : []],
    ];
    for (const [name, handler, path, own, foreign] of lists) {
      // Act
      const res = await call(handler, mine.key, 'GET', path, { query: { limit: '100' } });
      // Assess
      expect(res.status, name).toBe(200);
      expect(ids(res), name).toEqual(expect.arrayContaining(own));
      expect(
        ids(res).filter((id) => foreign.includes(id)),
        name,
      ).toEqual([]);
      expect(
        res.body.data.every((o: { livemode: boolean }) => o.livemode === (mode === 'live')),
        name,
      ).toBe(true);
    }
    const paymentList = await call(listPayments, mine.key, 'GET', '/api/payments/list');
    expect(paymentList.body.total).toBe(mode === 'test' ? 2 : 1);
  });

  it("answers 404 to reads and changes of the other mode's objects, and changes nothing", async () => {
    // Prepare
    const { key } = world[mode];
    const theirs = world[other(mode)];
    // Act
    const answers: Record<string, HttpResult> = {
      customer: await call(getCustomer, key, 'GET', `/api/customers/${theirs.customer}`),
      customerUpdate: await call(updateCustomer, key, 'PUT', `/api/customers/${theirs.customer}`, { body: { name: 'taken' } }),
      payment: await payments.get(key, theirs.payment),
      capture: await payments.capture(key, theirs.payment),
      refundPayment: await payments.refund(key, theirs.payment, { amount: 100 }),
      timeline: await call(timeline, key, 'GET', `/api/payments/${theirs.payment}/timeline`),
      refund: await call(getRefund, key, 'GET', `/api/refunds/${theirs.refund}`),
      invoice: await call(getInvoice, key, 'GET', `/api/invoices/${theirs.invoice.id}`),
      invoicePaid: await call(markPaid, key, 'PUT', `/api/invoices/${theirs.invoice.id}/mark-paid`),
      subscriptionPause: await call(pauseSubscription, key, 'PUT', `/api/subscriptions/${theirs.subscription}/pause`),
      ruleUpdate: await call(updateRule, key, 'PUT', `/api/routing/rules/${theirs.rule}`, { body: { priority: 1 } }),
      webhookDelete: await call(deleteWebhook, key, 'DELETE', `/api/webhooks/${theirs.webhook.id}`),
      settlement: await call(getSettlement, key, 'GET', `/api/settlements/${theirs.settlement}`),
      ...(theirs.dispute ? { dispute: await call(getDispute, key, 'GET', `/api/disputes/${theirs.dispute}`) } : {}),
      ...(theirs.connector ? { connector: await call(getConnector, key, 'GET', `/api/connectors/${theirs.connector}`) } : {}),
    };
    // Assess
    for (const [name, answer] of Object.entries(answers)) expect(answer.status, name).toBe(404);
    expect((await call(getCustomer, theirs.key, 'GET', `/api/customers/${theirs.customer}`)).body.name).toBe(other(mode));
    expect((await call(getInvoice, theirs.key, 'GET', `/api/invoices/${theirs.invoice.id}`)).body.status).toBe('draft');
    expect(ids(await call(listWebhooks, theirs.key, 'GET', '/api/webhooks'))).toEqual([theirs.webhook.id]);
  });

  it("counts its own mode's money only: balance, analytics and settlements", () => {
    // Prepare: USD captured 3,000 (test) and 7,000 (live), 1,000 refunded in each
    const net = mode === 'test' ? 2_000 : 6_000;
    // Assess
    expect(world[mode].balance.body).toMatchObject({
      livemode: mode === 'live',
      pending: expect.arrayContaining([{ amount: net, currency: 'USD' }]),
    });
    expect(world[mode].analytics.body).toMatchObject({ livemode: mode === 'live', attempts: 1, volume: net + 1_000 });
    expect(world[mode].settlement).toMatch(/^set_/);
  });

  it('numbers its invoices in its own sequence', () => {
    expect(world[mode].invoice.number).toBe('INV-000001');
  });
});

describe('webhook deliveries', () => {
  it("go to the endpoints of the event's mode only", async () => {
    // Act: the worker delivers every event both modes made
    const result = await deliver(queueEvent(queued, 'events'), fakeContext());
    // Assess
    expect(result).toEqual({ batchItemFailures: [] });
    for (const mode of ['test', 'live'] as const) {
      const verifier = new Webhook(world[mode].webhook.secret);
      const received = receivers[mode].received.map(
        (r) => verifier.verify(r.body, r.headers as Record<string, string>) as { livemode: boolean; data: { object: { id: string } } },
      );
      const objectIds = received.map((e) => e.data.object.id);
      expect(received.length, mode).toBeGreaterThan(0);
      expect(
        received.every((e) => e.livemode === (mode === 'live')),
        mode,
      ).toBe(true);
      expect(objectIds, mode).toContain(world[mode].payment);
      expect(objectIds, mode).not.toContain(world[other(mode)].payment);
      const log = await call(deliveries, world[mode].key, 'GET', '/api/webhooks/events', { query: { limit: '100' } });
      expect(log.body.data.length, mode).toBe(received.length);
    }
  });
});
