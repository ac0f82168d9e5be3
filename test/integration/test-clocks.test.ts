import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
// The reconciler reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('test-clocks'));
import { handler as getBalance } from '../../functions/balance/get.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as getCustomer } from '../../functions/customers/get.ts';
import { handler as createInvoice } from '../../functions/invoices/create.ts';
import { handler as listInvoices } from '../../functions/invoices/list.ts';
import { handler as listPayments } from '../../functions/payments/list.ts';
import { handler as listSettlements } from '../../functions/settlements/list.ts';
import { handler as createSubscription } from '../../functions/subscriptions/create.ts';
import { handler as listSubscriptions } from '../../functions/subscriptions/list.ts';
import { handler as advanceClock } from '../../functions/test-clocks/advance.ts';
import { handler as createClock } from '../../functions/test-clocks/create.ts';
import { handler as deleteClock } from '../../functions/test-clocks/delete.ts';
import { handler as getClock } from '../../functions/test-clocks/get.ts';
import { handler as listClocks } from '../../functions/test-clocks/list.ts';
import { handler as deliveries } from '../../functions/webhooks/events.ts';
import { handler as advanceWorker } from '../../functions/workers/test-clock-advance.ts';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { reconcile } from '../../shared/domain/reconciler.ts';
import { clocksQueue } from '../../shared/domain/test-clocks.ts';
import type { TestClockMessage } from '../../shared/schemas/test-clocks.ts';
import { recordAdvance } from '../../shared/store/test-clocks.ts';
import { apiEvent, fakeContext, type HttpResult, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { freshCard, paymentBody, payments } from '../support/payments.ts';

/**
 * Test clocks (docs/api.md "Test clocks"): a customer bound to a clock has its subscriptions renew, retry and settle on
 * the clock's time; advancing it runs that work, in time order, in the clocks worker.
 */
type Handler = Parameters<typeof invokeHttp>[0];
const call = (handler: Handler, key: string, method: string, path: string, options: { body?: unknown; query?: Record<string, string> } = {}) =>
  invokeHttp(handler, apiEvent({ method, path, headers: bearer(key), ...options }));

/** Advances are sent to the clocks queue; here they wait in `queued` until the worker is run on them. */
const queued: TestClockMessage[] = [];
const realSend = clocksQueue.send;
clocksQueue.send = async (messages) => {
  queued.push(...messages);
};
afterEach(() => {
  queued.length = 0;
});
afterAll(() => {
  clocksQueue.send = realSend;
});
const runQueuedAdvances = async () => {
  const batch = queued.splice(0);
  // with the worker's own time limit (5 minutes), as Lambda runs it
  const context = () => fakeContext({ name: 'workers/test-clock-advance', timeout: 300 });
  for (const message of batch) expect(await advanceWorker(queueEvent([message], 'clocks'), context())).toEqual({ batchItemFailures: [] });
};
const advance = (key: string, clockId: string, frozenTime: string) =>
  call(advanceClock, key, 'POST', `/api/test_clocks/${clockId}/advance`, { body: { frozen_time: frozenTime } });

const CHARGES_DECLINE_LATER = '4000000000000341';
const monthly = (customerId: string) => ({ customer_id: customerId, plan: 'Pro monthly', amount: 2900, currency: 'usd', interval: 'month' });

/** A merchant, a clock at `frozenTime`, a customer bound to it with `card` on file, subscribed monthly. */
async function subscribedOnClock(frozenTime: string, card = freshCard()) {
  const { apiKey, merchantId } = await newMerchant();
  const clock = (await call(createClock, apiKey, 'POST', '/api/test_clocks', { body: { frozen_time: frozenTime, name: 'Billing' } })).body;
  const email = `clock-${clock.id}@example.com`;
  const customer = (await call(createCustomer, apiKey, 'POST', '/api/customers', { body: { email, test_clock: clock.id } })).body;
  expect((await payments.create(apiKey, paymentBody({ customer: { email } }, card))).status).toBe(200);
  const subscription = (await call(createSubscription, apiKey, 'POST', '/api/subscriptions', { body: monthly(customer.id) })).body;
  return { apiKey, merchantId, clock, customer, subscription };
}

const eventsOf = async (key: string, type: string) =>
  (await call(deliveries, key, 'GET', '/api/webhooks/events', { query: { event: type, limit: '100' } })).body.data as Array<{ id: string }>;

describe('test clocks', () => {
  it('are made, listed, read and advanced in test mode only', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const liveKey = (
      await invokeHttp(
        createKey,
        apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
      )
    ).body.key;
    // Act
    const made = await call(createClock, apiKey, 'POST', '/api/test_clocks', { body: { frozen_time: '2027-01-01T00:00:00Z', name: 'Q1' } });
    const listed = await call(listClocks, apiKey, 'GET', '/api/test_clocks');
    const read = await call(getClock, apiKey, 'GET', `/api/test_clocks/${made.body.id}`);
    const tooFar = await call(createClock, apiKey, 'POST', '/api/test_clocks', { body: { frozen_time: '2099-01-01T00:00:00Z' } });
    const backwards = await advance(apiKey, made.body.id, '2026-12-31T00:00:00Z');
    const live: Record<string, HttpResult> = {
      create: await call(createClock, liveKey, 'POST', '/api/test_clocks', { body: { frozen_time: '2027-01-01T00:00:00Z' } }),
      list: await call(listClocks, liveKey, 'GET', '/api/test_clocks'),
      get: await call(getClock, liveKey, 'GET', `/api/test_clocks/${made.body.id}`),
      advance: await advance(liveKey, made.body.id, '2027-02-01T00:00:00Z'),
      delete: await call(deleteClock, liveKey, 'DELETE', `/api/test_clocks/${made.body.id}`),
    };
    // Assess
    expect(made.status).toBe(200);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^clk_[0-9a-z]{26}$/),
      object: 'test_clock',
      name: 'Q1',
      frozen_time: '2027-01-01T00:00:00.000Z',
      status: 'ready',
      created_at: expect.any(String),
      livemode: false,
    });
    expect(listed.body.data).toEqual([made.body]);
    expect(read.body).toEqual(made.body);
    expect(tooFar.body.error).toMatchObject({ code: 'parameter_invalid', param: 'frozen_time' });
    expect(backwards.body.error).toMatchObject({ code: 'parameter_invalid', param: 'frozen_time' });
    for (const [name, answer] of Object.entries(live)) {
      expect(answer.status, name).toBe(400);
      expect(answer.body.error, name).toMatchObject({ code: 'livemode_not_allowed' });
    }
  });

  it('answers 400 invalid_state to a second advance while the first runs, and emits test_clock.ready once done', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const clock = (await call(createClock, apiKey, 'POST', '/api/test_clocks', { body: { frozen_time: '2027-01-01T00:00:00Z' } })).body;
    // Act
    const [first, second] = await Promise.all([advance(apiKey, clock.id, '2027-02-01T00:00:00Z'), advance(apiKey, clock.id, '2027-03-01T00:00:00Z')]);
    const during = await call(getClock, apiKey, 'GET', `/api/test_clocks/${clock.id}`);
    await runQueuedAdvances();
    const after = await call(getClock, apiKey, 'GET', `/api/test_clocks/${clock.id}`);
    // Assess
    const answers = [first, second].sort((a, b) => a.status - b.status);
    expect(answers.map((a) => a.status)).toEqual([200, 400]);
    expect(answers[0]!.body).toMatchObject({ status: 'advancing', frozen_time: '2027-01-01T00:00:00.000Z' });
    expect(answers[1]!.body.error).toMatchObject({ code: 'invalid_state' });
    expect(during.body.status).toBe('advancing');
    expect(after.body.status).toBe('ready');
    expect(['2027-02-01T00:00:00.000Z', '2027-03-01T00:00:00.000Z']).toContain(after.body.frozen_time);
    expect(await eventsOf(apiKey, 'test_clock.ready')).toHaveLength(1);
  });

  it('renews a monthly subscription 12 times with 12 invoices over 13 calendar months, across month ends and a leap day', async () => {
    // Prepare: the clock on 31 January 2028 (a leap year)
    const { apiKey, clock, subscription } = await subscribedOnClock('2028-01-31T12:00:00Z');
    expect(subscription).toMatchObject({ next_billing: '2028-02-29', current_period_start: '2028-01-31' });
    // Act: to 27 February 2029, the day before the 13th renewal
    const advancing = await advance(apiKey, clock.id, '2029-02-27T12:00:00Z');
    await runQueuedAdvances();
    // Assess
    expect(advancing.body.status).toBe('advancing');
    expect((await call(getClock, apiKey, 'GET', `/api/test_clocks/${clock.id}`)).body).toMatchObject({
      status: 'ready',
      frozen_time: '2029-02-27T12:00:00.000Z',
    });
    const periods = [
      '2028-02-29',
      '2028-03-31',
      '2028-04-30',
      '2028-05-31',
      '2028-06-30',
      '2028-07-31',
      '2028-08-31',
      '2028-09-30',
      '2028-10-31',
      '2028-11-30',
      '2028-12-31',
      '2029-01-31',
    ];
    const invoices = (await call(listInvoices, apiKey, 'GET', '/api/invoices', { query: { limit: '100' } })).body.data;
    expect(invoices.map((i: { period_start: string }) => i.period_start).sort()).toEqual(periods);
    expect(invoices.every((i: { status: string }) => i.status === 'paid')).toBe(true);
    const charges = (await call(listPayments, apiKey, 'GET', '/api/payments/list', { query: { limit: '100' } })).body.data.filter(
      (p: { metadata: Record<string, string> }) => p.metadata.subscription_id === subscription.id,
    );
    expect(charges.map((c: { created_at: string }) => c.created_at.slice(0, 10)).sort()).toEqual(periods);
    expect(charges.every((c: { status: string }) => c.status === 'captured')).toBe(true);
    const [renewed] = (await call(listSubscriptions, apiKey, 'GET', '/api/subscriptions')).body.data;
    expect(renewed).toMatchObject({ status: 'active', current_period_start: '2029-01-31', next_billing: '2029-02-28' });
    expect(await eventsOf(apiKey, 'subscription.renewed')).toHaveLength(12);
  });

  it("dates its customer's invoices by the clock: made through the API at its time, a renewal's on its period's day", async () => {
    // Prepare
    const { apiKey, clock, customer } = await subscribedOnClock('2027-01-31T09:00:00Z');
    // Act
    const made = await call(createInvoice, apiKey, 'POST', '/api/invoices', {
      body: { customer_id: customer.id, items: [{ name: 'Setup', amount: 1000, quantity: 1 }], currency: 'usd', due_date: '2027-02-15' },
    });
    await advance(apiKey, clock.id, '2027-03-01T09:00:00Z');
    await runQueuedAdvances();
    // Assess
    expect(made.body.created_at).toBe('2027-01-31T09:00:00.000Z');
    const invoices = (await call(listInvoices, apiKey, 'GET', '/api/invoices', { query: { customer_id: customer.id } })).body.data;
    const renewal = invoices.find((i: { period_start: string | null }) => i.period_start === '2027-02-28');
    expect(renewal.created_at.slice(0, 10)).toBe('2027-02-28');
  });

  it('takes a declining card past_due with retries on days 1, 3, 5 and 7, each with its event', async () => {
    // Prepare: due on 15 March 2027
    const { apiKey, clock, subscription } = await subscribedOnClock('2027-02-15T09:00:00Z', CHARGES_DECLINE_LATER);
    // Act: 40 days on
    await advance(apiKey, clock.id, '2027-03-27T09:00:00Z');
    await runQueuedAdvances();
    // Assess
    const [sub] = (await call(listSubscriptions, apiKey, 'GET', '/api/subscriptions')).body.data;
    expect(sub).toMatchObject({ id: subscription.id, status: 'past_due', next_billing: '2027-03-15', retry_at: null });
    const declined = (await call(listPayments, apiKey, 'GET', '/api/payments/list', { query: { status: 'failed', limit: '100' } })).body.data;
    expect(declined.map((p: { created_at: string }) => p.created_at.slice(0, 10)).sort()).toEqual([
      '2027-03-15',
      '2027-03-16',
      '2027-03-18',
      '2027-03-20',
      '2027-03-22',
    ]);
    const pastDue = (await call(deliveries, apiKey, 'GET', '/api/webhooks/events', { query: { event: 'subscription.past_due', limit: '100' } })).body
      .data;
    expect(pastDue).toHaveLength(5);
  });

  it('moves a capture from pending to available two days on, and into a settlement', async () => {
    // Prepare: the first renewal (a capture) on 10 April 2027
    const { apiKey, clock } = await subscribedOnClock('2027-03-10T08:00:00Z');
    await advance(apiKey, clock.id, '2027-04-10T08:00:00Z');
    await runQueuedAdvances();
    const pending = (await call(getBalance, apiKey, 'GET', '/api/balance')).body;
    // Act: two days on
    await advance(apiKey, clock.id, '2027-04-12T08:00:00Z');
    await runQueuedAdvances();
    // Assess
    expect(pending.pending).toEqual(expect.arrayContaining([{ amount: 2900, currency: 'USD' }]));
    const settlements = (await call(listSettlements, apiKey, 'GET', '/api/settlements')).body.data;
    expect(settlements).toEqual([
      expect.objectContaining({ status: 'pending', arrival_date: '2027-04-14', created_at: expect.stringMatching(/^2027-04-12/) }),
    ]);
    expect(settlements[0].amount).toBeGreaterThanOrEqual(2900);
    const after = (await call(getBalance, apiKey, 'GET', '/api/balance')).body;
    expect(after.pending.find((f: { currency: string }) => f.currency === 'USD')?.amount ?? 0).toBe(
      pending.pending.find((f: { currency: string }) => f.currency === 'USD').amount - 2900,
    );
  });

  it('resumes an advance that crashed midway, renewing nothing twice', async () => {
    // Prepare: an advance over three renewals whose worker died after the first (its progress recorded)
    const { apiKey, clock, subscription } = await subscribedOnClock('2027-05-20T00:00:00Z');
    await advance(apiKey, clock.id, '2027-06-20T00:00:00Z');
    await runQueuedAdvances();
    await advance(apiKey, clock.id, '2027-08-25T00:00:00Z');
    const [message] = queued.splice(0);
    await recordAdvance(clock.id, '2027-06-20T00:00:00.000Z', new Date().toISOString());
    // Act: the message comes again, twice
    await advanceWorker(queueEvent([message], 'clocks'), fakeContext());
    await advanceWorker(queueEvent([message], 'clocks'), fakeContext());
    // Assess
    const invoices = (await call(listInvoices, apiKey, 'GET', '/api/invoices', { query: { limit: '100' } })).body.data;
    expect(invoices.map((i: { period_start: string }) => i.period_start).sort()).toEqual(['2027-06-20', '2027-07-20', '2027-08-20']);
    expect(invoices.every((i: { subscription_id: string }) => i.subscription_id === subscription.id)).toBe(true);
    expect((await call(getClock, apiKey, 'GET', `/api/test_clocks/${clock.id}`)).body.status).toBe('ready');
  });

  it('is sent again by the reconciler when its message was lost, and then finishes', async () => {
    // Prepare: an advance whose queue message never arrived
    const { apiKey, clock } = await subscribedOnClock('2027-11-05T00:00:00Z');
    await advance(apiKey, clock.id, '2027-12-06T00:00:00Z');
    queued.splice(0);
    // Act: the reconciler's run ten minutes later
    await reconcile(Date.now() + 11 * 60_000);
    await runQueuedAdvances();
    // Assess
    expect((await call(getClock, apiKey, 'GET', `/api/test_clocks/${clock.id}`)).body).toMatchObject({
      status: 'ready',
      frozen_time: '2027-12-06T00:00:00.000Z',
    });
    const invoices = (await call(listInvoices, apiKey, 'GET', '/api/invoices')).body.data;
    expect(invoices.map((i: { period_start: string }) => i.period_start)).toEqual(['2027-12-05']);
  });

  it('takes its customers, their subscriptions and invoices with it when deleted', async () => {
    // Prepare
    const { apiKey, clock, customer, subscription } = await subscribedOnClock('2027-09-01T00:00:00Z');
    await advance(apiKey, clock.id, '2027-10-02T00:00:00Z');
    await runQueuedAdvances();
    // Act
    const deleted = await call(deleteClock, apiKey, 'DELETE', `/api/test_clocks/${clock.id}`);
    // Assess
    expect(deleted.body).toEqual({ id: clock.id, object: 'test_clock', deleted: true });
    expect((await call(getClock, apiKey, 'GET', `/api/test_clocks/${clock.id}`)).status).toBe(404);
    expect((await call(getCustomer, apiKey, 'GET', `/api/customers/${customer.id}`)).status).toBe(404);
    const subscriptions = (await call(listSubscriptions, apiKey, 'GET', '/api/subscriptions')).body.data.map((s: { id: string }) => s.id);
    expect(subscriptions).not.toContain(subscription.id);
    const invoices = (await call(listInvoices, apiKey, 'GET', '/api/invoices')).body.data;
    expect(invoices.filter((i: { customer_id: string }) => i.customer_id === customer.id)).toEqual([]);
  });
});
