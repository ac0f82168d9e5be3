import { afterEach, describe, expect, it, vi } from 'vitest';
// The renewal scanner reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('subscription-update'));
import { handler as cancel } from '../../functions/subscriptions/cancel.ts';
import { handler as create } from '../../functions/subscriptions/create.ts';
import { handler as get } from '../../functions/subscriptions/get.ts';
import { handler as update } from '../../functions/subscriptions/update.ts';
import { handler as renewalWorker } from '../../functions/workers/renewal.ts';
import { handler as scanner } from '../../functions/workers/renewal-scanner.ts';
import { addDays } from '../../shared/model/billing-dates.ts';
import { clock } from '../../shared/model/clock.ts';
import { renewalsQueue } from '../../shared/domain/renewals.ts';
import type { RenewalMessageBody } from '../../shared/schemas/subscriptions.ts';
import { listEvents } from '../../shared/store/events.ts';
import { listInvoices } from '../../shared/store/invoices.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

const call = {
  create: (key: string, body: unknown) => invokeHttp(create, apiEvent({ method: 'POST', path: '/api/subscriptions', headers: bearer(key), body })),
  get: (key: string, id: string, headers: Record<string, string> = {}) =>
    invokeHttp(get, apiEvent({ method: 'GET', path: `/api/subscriptions/${id}`, headers: { ...bearer(key), ...headers } })),
  update: (key: string, id: string, body: unknown, headers: Record<string, string> = {}) =>
    invokeHttp(update, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}`, headers: { ...bearer(key), ...headers }, body })),
  cancel: (key: string, id: string) => invokeHttp(cancel, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/cancel`, headers: bearer(key) })),
};

const monthly = (customerId: string) => ({ customer_id: customerId, plan: 'Pro monthly', amount: 2900, currency: 'eur', interval: 'month' });
const daily = (customerId: string) => ({ customer_id: customerId, plan: 'Daily coffee', amount: 450, currency: 'usd', interval: 'day' });

const realNow = clock.now;
const realRenewalsSend = renewalsQueue.send;
afterEach(() => {
  clock.now = realNow;
  renewalsQueue.send = realRenewalsSend;
});

/** The clock at noon UTC of a date (the scanner and the worker read "today" from it). */
const at = (date: string) => {
  const offset = Date.parse(`${date}T12:00:00.000Z`) - realNow();
  clock.now = () => realNow() + offset;
};

/** Runs the scheduled scanner, then the renewal worker on what it enqueued for this subscription. */
async function runRenewals(subscriptionId: string) {
  const sent: RenewalMessageBody[] = [];
  renewalsQueue.send = async (messages) => void sent.push(...messages);
  await scanner({}, fakeContext());
  renewalsQueue.send = realRenewalsSend;
  const mine = sent.filter((m) => m.subscription_id === subscriptionId);
  const result = await renewalWorker(
    queueEvent(
      mine.map((m) => JSON.stringify(m)),
      'renewals',
    ),
    fakeContext(),
  );
  expect(result).toEqual({ batchItemFailures: [] });
  return mine;
}

const eventsOf = async (merchantId: string, type: string) => (await listEvents(testOwner(merchantId), { event: type }, { limit: 100 })).data;
const chargesOf = async (merchantId: string, subscriptionId: string) =>
  (await listPayments(testOwner(merchantId), {}, { limit: 100 })).data.filter((p) => p.metadata.subscription_id === subscriptionId);

describe('GET /api/subscriptions/:id', () => {
  it('answers the subscription as the create did', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const created = (await call.create(apiKey, { ...monthly(customerId), metadata: { crm: '7' } })).body;
    // Act
    const res = await call.get(apiKey, created.id);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    expect(res.body).toMatchObject({ cancel_at_period_end: false, metadata: { crm: '7' } });
  });

  it("answers 404 for another merchant's, the other mode's, an unknown and a malformed id", async () => {
    // Prepare
    const a = await newMerchant();
    const b = await newMerchant();
    const theirs = (await call.create(b.apiKey, monthly(b.customerId))).body;
    const mine = (await call.create(a.apiKey, monthly(a.customerId))).body;
    const liveSession = await sessionOf(a.merchantId);
    // Act
    const answers = [
      ...(await Promise.all(
        [theirs.id, 'sub_01jd0z8x9k2m3n4p5q6r7s8t9v', 'sub_nope', 'pay_01jd0z8x9k2m3n4p5q6r7s8t9v'].map((id) => call.get(a.apiKey, id)),
      )),
      await call.get(liveSession, mine.id, { Livemode: 'true' }),
    ];
    // Assess
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
    }
    expect((await call.get(liveSession, mine.id)).status).toBe(200);
  });
});

describe('PUT /api/subscriptions/:id', () => {
  it('changes the fields sent, replaces the metadata, keeps the rest and the schedule, and emits no event', async () => {
    // Prepare
    const { apiKey, customerId, merchantId } = await newMerchant();
    const created = (await call.create(apiKey, { ...monthly(customerId), metadata: { crm: '7', tier: 'b' } })).body;
    // Act
    const res = await call.update(apiKey, created.id, { amount: 3900, plan: 'Pro monthly (2027)', metadata: { crm: '8' } });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, amount: 3900, plan: 'Pro monthly (2027)', metadata: { crm: '8' } });
    expect((await call.get(apiKey, created.id)).body).toEqual(res.body);
    expect(await eventsOf(merchantId, 'subscription.created')).toHaveLength(1);
    const only = await call.update(apiKey, created.id, { cancel_at_period_end: true });
    expect(only.body).toEqual({ ...res.body, cancel_at_period_end: true });
  });

  it('bills the new plan and amount from the next renewal on', async () => {
    // Prepare: a daily subscription with a card on file, changed before its first renewal
    const { apiKey, customerId, merchantId } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    const sub = (await call.create(apiKey, daily(customerId))).body;
    expect((await call.update(apiKey, sub.id, { amount: 600, plan: 'Daily coffee, large' })).status).toBe(200);
    // Act
    at(sub.next_billing);
    await runRenewals(sub.id);
    // Assess
    expect(await chargesOf(merchantId, sub.id)).toEqual([expect.objectContaining({ status: 'captured', amount: 600 })]);
    const invoices = (await listInvoices(testOwner(merchantId), {}, { limit: 10 })).data;
    expect(invoices).toEqual([expect.objectContaining({ items: [{ name: 'Daily coffee, large', amount: 600, quantity: 1 }], total: 600 })]);
  });

  it.each([
    [{ amount: 0 }, 'amount'],
    [{ amount: 12.5 }, 'amount'],
    [{ amount: '3900' }, 'amount'],
    [{ plan: '' }, 'plan'],
    [{ plan: 'p'.repeat(201) }, 'plan'],
    [{ cancel_at_period_end: 'yes' }, 'cancel_at_period_end'],
    [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
    [{ metadata: { k: 'v'.repeat(501) } }, 'metadata'],
    [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
  ])('answers 400 parameter_invalid to %o and changes nothing', async (change, param) => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const created = (await call.create(apiKey, monthly(customerId))).body;
    // Act
    const res = await call.update(apiKey, created.id, change);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid' });
    expect(res.body.error.param.split('.')[0]).toBe(param);
    expect(res.body.error.message).not.toMatch(/expected/);
    expect((await call.get(apiKey, created.id)).body).toEqual(created);
  });

  it('ignores fields it does not change (currency, interval, status), as any unknown body field', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const created = (await call.create(apiKey, monthly(customerId))).body;
    // Act
    const res = await call.update(apiKey, created.id, { currency: 'usd', interval: 'year', status: 'cancelled' });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it('answers 400 invalid_state for a cancelled subscription', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const created = (await call.create(apiKey, monthly(customerId))).body;
    const cancelled = (await call.cancel(apiKey, created.id)).body;
    // Act
    const res = await call.update(apiKey, created.id, { amount: 100 });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('a cancelled subscription cannot be updated') });
    expect((await call.get(apiKey, created.id)).body).toEqual(cancelled);
  });

  it("answers 404 for another merchant's, the other mode's and an unknown subscription, changing nothing", async () => {
    // Prepare
    const a = await newMerchant();
    const b = await newMerchant();
    const theirs = (await call.create(b.apiKey, monthly(b.customerId))).body;
    const mine = (await call.create(a.apiKey, monthly(a.customerId))).body;
    const liveSession = await sessionOf(a.merchantId);
    // Act
    const answers = [
      await call.update(a.apiKey, theirs.id, { amount: 1 }),
      await call.update(a.apiKey, 'sub_01jd0z8x9k2m3n4p5q6r7s8t9v', { amount: 1 }),
      await call.update(liveSession, mine.id, { amount: 1 }, { Livemode: 'true' }),
    ];
    // Assess
    for (const res of answers) expect(res.status).toBe(404);
    expect((await call.get(b.apiKey, theirs.id)).body.amount).toBe(2900);
    expect((await call.get(a.apiKey, mine.id)).body.amount).toBe(2900);
  });
});

describe('cancel_at_period_end', () => {
  it('cancels on the renewal date instead of charging, with subscription.cancelled', async () => {
    // Prepare: a card on file (a renewal would charge it), the subscription set to end with its period
    const { apiKey, customerId, merchantId } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    const sub = (await call.create(apiKey, daily(customerId))).body;
    expect((await call.update(apiKey, sub.id, { cancel_at_period_end: true })).body.status).toBe('active');
    // Act
    at(sub.next_billing);
    const messages = await runRenewals(sub.id);
    // Assess: no charge, no invoice, cancelled on the day, its event; nothing due any more
    expect(messages).toHaveLength(1);
    expect(await chargesOf(merchantId, sub.id)).toEqual([]);
    expect((await listInvoices(testOwner(merchantId), {}, { limit: 10 })).data).toEqual([]);
    const after = (await call.get(apiKey, sub.id)).body;
    expect(after).toMatchObject({ status: 'cancelled', cancel_at_period_end: true, next_billing: sub.next_billing });
    expect(after.cancelled_at.slice(0, 10)).toBe(sub.next_billing);
    const [event] = await eventsOf(merchantId, 'subscription.cancelled');
    expect(event?.data.object).toMatchObject({ id: sub.id, status: 'cancelled' });
    expect(await eventsOf(merchantId, 'subscription.renewed')).toEqual([]);
    at(addDays(sub.next_billing, 1));
    expect(await runRenewals(sub.id)).toEqual([]);
  });

  it('renews as usual once set back to false before the period ends', async () => {
    // Prepare
    const { apiKey, customerId, merchantId } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    const sub = (await call.create(apiKey, daily(customerId))).body;
    await call.update(apiKey, sub.id, { cancel_at_period_end: true });
    expect((await call.update(apiKey, sub.id, { cancel_at_period_end: false })).body.cancel_at_period_end).toBe(false);
    // Act
    at(sub.next_billing);
    await runRenewals(sub.id);
    // Assess
    expect(await chargesOf(merchantId, sub.id)).toEqual([expect.objectContaining({ status: 'captured', amount: 450 })]);
    expect((await call.get(apiKey, sub.id)).body).toMatchObject({ status: 'active', next_billing: addDays(sub.next_billing, 1) });
    expect(await eventsOf(merchantId, 'subscription.cancelled')).toEqual([]);
  });
});
