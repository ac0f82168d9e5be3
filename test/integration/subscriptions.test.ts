import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as cancel } from '../../functions/subscriptions/cancel.ts';
import { handler as create } from '../../functions/subscriptions/create.ts';
import { handler as list } from '../../functions/subscriptions/list.ts';
import { handler as pause } from '../../functions/subscriptions/pause.ts';
import { handler as resume } from '../../functions/subscriptions/resume.ts';
import { addDays, billingDateOnOrAfter, firstBillingDate, utcDate } from '../../shared/model/billing-dates.ts';
import { clock } from '../../shared/model/clock.ts';
import { createCustomer } from '../../shared/domain/customers.ts';
import { createSubscription } from '../../shared/domain/subscriptions.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { listEvents } from '../../shared/store/events.ts';
import { subscriptionKeys } from '../../shared/store/keys.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testActor, testOwner } from '../support/merchant.ts';

const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
});
/** Moves the clock to an instant (ISO) or by a number of days from now; afterEach puts it back. */
const setClock = (to: string | number) => {
  const target = typeof to === 'string' ? Date.parse(to) : realNow() + to * 86_400_000;
  const offset = target - realNow();
  clock.now = () => realNow() + offset;
};
const today = () => utcDate(clock.now());

const call = {
  create: (key: string, body: unknown, headers: Record<string, string> = {}) =>
    invokeHttp(create, apiEvent({ method: 'POST', path: '/api/subscriptions', headers: { ...bearer(key), ...headers }, body })),
  list: (key: string, query: Record<string, string> = {}) =>
    invokeHttp(list, apiEvent({ method: 'GET', path: '/api/subscriptions', headers: bearer(key), query })),
  pause: (key: string, id: string) => invokeHttp(pause, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/pause`, headers: bearer(key) })),
  resume: (key: string, id: string) => invokeHttp(resume, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/resume`, headers: bearer(key) })),
  cancel: (key: string, id: string) => invokeHttp(cancel, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/cancel`, headers: bearer(key) })),
};

const body = (customerId: string, overrides: Record<string, unknown> = {}) => ({
  customer_id: customerId,
  plan: 'Pro monthly',
  amount: 2900,
  currency: 'eur',
  interval: 'month',
  ...overrides,
});

/** The objects of the merchant's events of one type, newest first (the outbox records). */
/** The objects of the merchant's events of `type`, as the API showed them (each also carries its `sequence`). */
const eventsOf = async (merchantId: string, type: string) =>
  (await listEvents(testOwner(merchantId), { event: type }, { limit: 100 })).data.map((e) => {
    const { sequence, ...object } = e.data.object;
    expect(sequence).toEqual(expect.any(Number));
    return object;
  });

/** The raw table item: the renewal index keys are not part of the API. */
const rawItem = async (id: string) => (await db.send(new GetCommand({ TableName: TABLE, Key: subscriptionKeys.item(id) }))).Item!;

describe('POST /api/subscriptions', () => {
  it('creates an active subscription billed one interval after its start, with its event', async () => {
    // Prepare
    const { apiKey, customerId, merchantId } = await newMerchant();
    // Act
    const res = await call.create(apiKey, body(customerId, { metadata: { crm: '7' } }));
    // Assess
    const start = today();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^sub_[0-9a-z]{26}$/),
      object: 'subscription',
      status: 'active',
      customer_id: customerId,
      payment_method: null,
      plan: 'Pro monthly',
      amount: 2900,
      currency: 'EUR',
      interval: 'month',
      interval_count: 1,
      current_period_start: start,
      next_billing: firstBillingDate({ anchor: start, interval: 'month', interval_count: 1 }),
      retry_at: null,
      retry_reason: null,
      latest_invoice: null,
      metadata: { crm: '7' },
      cancel_at_period_end: false,
      livemode: false,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      cancelled_at: null,
    });
    expect(await eventsOf(merchantId, 'subscription.created')).toEqual([res.body]);
    // In the renewal index under its next billing date
    expect((await rawItem(res.body.id)).gsi2sk).toBe(`${res.body.next_billing}#${res.body.id}`);
  });

  it.each([
    ['2027-01-31', 'month', 1, '2027-02-28'],
    ['2028-01-31', 'month', 1, '2028-02-29'],
    ['2028-02-29', 'year', 1, '2029-02-28'],
    ['2027-03-31', 'month', 3, '2027-06-30'],
    ['2027-12-29', 'week', 1, '2028-01-05'],
    ['2027-12-31', 'day', 1, '2028-01-01'],
    ['2027-01-15', 'day', 365, '2028-01-15'],
  ])('starting %s every %s × %i bills next on %s', async (start, interval, count, next) => {
    const { apiKey, customerId } = await newMerchant();
    setClock(`${start}T08:00:00.000Z`);
    const res = await call.create(apiKey, body(customerId, { start_date: start, interval, interval_count: count }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ current_period_start: start, next_billing: next, interval, interval_count: count });
  });

  it('starts on a future date', async () => {
    const { apiKey, customerId } = await newMerchant();
    const start = addDays(today(), 10);
    const res = await call.create(apiKey, body(customerId, { start_date: start, interval: 'week' }));
    expect(res.body).toMatchObject({ current_period_start: start, next_billing: addDays(start, 7) });
  });

  it.each([
    [{ plan: undefined }, 'plan'],
    [{ plan: '' }, 'plan'],
    [{ plan: '   ' }, 'plan'],
    [{ plan: 'x'.repeat(201) }, 'plan'],
    [{ amount: 0 }, 'amount'],
    [{ amount: 100_000_000 }, 'amount'],
    [{ amount: 10.5 }, 'amount'],
    [{ amount: '2900' }, 'amount'],
    [{ currency: 'xyz' }, 'currency'],
    [{ currency: undefined }, 'currency'],
    [{ interval: 'fortnight' }, 'interval'],
    [{ interval: undefined }, 'interval'],
    [{ interval_count: 0 }, 'interval_count'],
    [{ interval_count: 1.5 }, 'interval_count'],
    [{ interval: 'month', interval_count: 13 }, 'interval_count'],
    [{ interval: 'year', interval_count: 2 }, 'interval_count'],
    [{ interval: 'week', interval_count: 53 }, 'interval_count'],
    [{ interval: 'day', interval_count: 366 }, 'interval_count'],
    [{ start_date: '2020-01-01' }, 'start_date'],
    [{ start_date: '2030-02-30' }, 'start_date'],
    [{ start_date: '2030-02-01T00:00:00Z' }, 'start_date'],
    [{ start_date: '9999-01-01' }, 'start_date'],
    [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
    [{ customer_id: undefined }, 'customer_id'],
    [{ customer_id: 42 }, 'customer_id'],
  ])('answers 400 to %o', async (overrides, param) => {
    const { apiKey, customerId } = await newMerchant();
    const res = await call.create(apiKey, body(customerId, overrides));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/^Invalid request body: ./) });
    expect(res.body.error.param.split('.')[0]).toBe(param);
  });

  it('refuses yesterday and takes today (UTC)', async () => {
    const { apiKey, customerId } = await newMerchant();
    setClock('2027-05-10T23:59:00.000Z');
    expect((await call.create(apiKey, body(customerId, { start_date: '2027-05-09' }))).status).toBe(400);
    expect((await call.create(apiKey, body(customerId, { start_date: '2027-05-10' }))).status).toBe(200);
  });

  it("answers 400 resource_missing for an unknown, malformed or another merchant's customer", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    for (const customerId of [b.customerId, 'cus_01jd0z8x9k2m3n4p5q6r7s8t9v', 'nobody']) {
      const res = await call.create(a.apiKey, body(customerId));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'customer_id', message: 'Invalid request body' });
    }
    expect((await call.list(a.apiKey)).body.data).toEqual([]);
  });

  it('replays a create with the same Idempotency-Key and refuses the key with another body', async () => {
    const { apiKey, customerId } = await newMerchant();
    const first = await call.create(apiKey, body(customerId), { 'Idempotency-Key': 'sub-1' });
    const again = await call.create(apiKey, body(customerId), { 'Idempotency-Key': 'sub-1' });
    const other = await call.create(apiKey, body(customerId, { amount: 1 }), { 'Idempotency-Key': 'sub-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect((await call.list(apiKey)).body.data).toHaveLength(1);
  });

  it('answers the subscription its first run stored to a request run again after a crash, creating no second', async () => {
    // Prepare: the first run of a keyed request stored the subscription, then died before answering
    const { apiKey, customerId, merchantId } = await newMerchant();
    const merchant = { id: merchantId, credential: 'api_key' as const, livemode: false };
    const origin = { at: clock.now() - 30_000, seed: `test#${randomUUID()}` };
    const input = { customer_id: customerId, plan: 'Pro monthly', amount: 2900, currency: 'EUR', interval: 'month' as const, interval_count: 1 };
    const first = await createSubscription(merchant, input, origin);
    // Act: the retry runs the create again under the same origin, a minute later
    clock.now = () => realNow() + 60_000;
    const again = await createSubscription(merchant, input, origin);
    // Assess: the same subscription, created when the request first ran; one object, one event
    expect(again).toEqual(first);
    expect(first.created_at).toBe(new Date(origin.at).toISOString());
    expect((await call.list(apiKey)).body.data).toEqual([first]);
    expect(await eventsOf(merchantId, 'subscription.created')).toHaveLength(1);
  });

  it('answers 401 without a valid key', async () => {
    const res = await call.create('sk_test_nope', body('cus_01jd0z8x9k2m3n4p5q6r7s8t9v'));
    expect(res.status).toBe(401);
  });
});

describe('GET /api/subscriptions', () => {
  it('lists newest first with cursors both ways, and filters by status and customer', async () => {
    // Prepare: five subscriptions over two customers, one paused
    const { apiKey, customerId, merchantId } = await newMerchant();
    const other = await createCustomer(testActor(merchantId), { email: 'other@example.com' });
    const ids: string[] = [];
    for (const [i, customer] of [customerId, customerId, other.id, customerId, other.id].entries()) {
      ids.push((await call.create(apiKey, body(customer, { plan: `Plan ${i}` }))).body.id);
    }
    await call.pause(apiKey, ids[3]!);
    const newestFirst = [...ids].reverse();
    // Act
    const page1 = await call.list(apiKey, { limit: '2' });
    const page2 = await call.list(apiKey, { limit: '2', starting_after: page1.body.data[1].id });
    const page3 = await call.list(apiKey, { limit: '2', starting_after: page2.body.data[1].id });
    const back = await call.list(apiKey, { limit: '2', ending_before: page3.body.data[0].id });
    const paused = await call.list(apiKey, { status: 'paused' });
    const active = await call.list(apiKey, { status: 'active', limit: '3' });
    const ofOther = await call.list(apiKey, { customer_id: other.id });
    const both = await call.list(apiKey, { customer_id: customerId, status: 'active' });
    // Assess
    const idsOf = (res: { body: { data: { id: string }[] } }) => res.body.data.map((s) => s.id);
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ object: 'list', has_more: true });
    expect([...idsOf(page1), ...idsOf(page2), ...idsOf(page3)]).toEqual(newestFirst);
    expect(page3.body.has_more).toBe(false);
    expect(idsOf(back)).toEqual(idsOf(page2));
    expect(idsOf(paused)).toEqual([ids[3]]);
    expect(paused.body.data[0]).toMatchObject({ status: 'paused', next_billing: expect.any(String) });
    expect(idsOf(active)).toEqual([ids[4], ids[2], ids[1]]);
    expect(active.body.has_more).toBe(true);
    expect(idsOf(ofOther)).toEqual([ids[4], ids[2]]);
    expect(idsOf(both)).toEqual([ids[1], ids[0]]);
  });

  it("shows only the merchant's own subscriptions", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    await call.create(b.apiKey, body(b.customerId));
    expect((await call.list(a.apiKey)).body).toEqual({ object: 'list', data: [], has_more: false });
  });

  it.each([[{ status: 'sleeping' }], [{ customer_id: 'nobody' }], [{ limit: '0' }], [{ limit: '101' }], [{ starting_after: 'pay_x' }]])(
    'answers 400 to the query %o',
    async (query) => {
      const { apiKey } = await newMerchant();
      expect((await call.list(apiKey, query)).status).toBe(400);
    },
  );
});

describe('pause, resume, cancel', () => {
  it('pauses (out of the renewal index), resumes (back in), cancels, each with its event', async () => {
    const { apiKey, customerId, merchantId } = await newMerchant();
    const { body: sub } = await call.create(apiKey, body(customerId));
    const paused = await call.pause(apiKey, sub.id);
    const pausedItem = await rawItem(sub.id);
    const resumed = await call.resume(apiKey, sub.id);
    const resumedItem = await rawItem(sub.id);
    const cancelled = await call.cancel(apiKey, sub.id);
    const cancelledItem = await rawItem(sub.id);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: sub.id, status: 'paused', next_billing: sub.next_billing });
    expect(pausedItem.gsi2pk).toBeUndefined();
    // Resumed before its next billing date: the date stays
    expect(resumed.body).toMatchObject({ id: sub.id, status: 'active', next_billing: sub.next_billing });
    expect(resumedItem.gsi2sk).toBe(`${sub.next_billing}#${sub.id}`);
    expect(cancelled.body).toMatchObject({ id: sub.id, status: 'cancelled', cancelled_at: expect.any(String) });
    expect(cancelledItem.gsi2pk).toBeUndefined();
    expect(await eventsOf(merchantId, 'subscription.paused')).toEqual([paused.body]);
    expect(await eventsOf(merchantId, 'subscription.resumed')).toEqual([resumed.body]);
    expect(await eventsOf(merchantId, 'subscription.cancelled')).toEqual([cancelled.body]);
  });

  it('cancels a paused subscription', async () => {
    const { apiKey, customerId } = await newMerchant();
    const { body: sub } = await call.create(apiKey, body(customerId));
    await call.pause(apiKey, sub.id);
    const res = await call.cancel(apiKey, sub.id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
  });

  it('resumes on the next future billing date of the anchor schedule, skipping the paused periods', async () => {
    // Prepare: Jan 31 monthly, paused in February
    const { apiKey, customerId } = await newMerchant();
    setClock('2027-01-31T09:00:00.000Z');
    const { body: sub } = await call.create(apiKey, body(customerId, { start_date: '2027-01-31' }));
    setClock('2027-02-10T09:00:00.000Z');
    await call.pause(apiKey, sub.id);
    // Act: resumed on May 5th, then paused again and resumed on a billing day
    setClock('2027-05-05T09:00:00.000Z');
    const resumed = await call.resume(apiKey, sub.id);
    await call.pause(apiKey, sub.id);
    setClock('2027-06-30T09:00:00.000Z');
    const onBillingDay = await call.resume(apiKey, sub.id);
    // Assess
    expect(sub.next_billing).toBe('2027-02-28');
    expect(resumed.body).toMatchObject({ status: 'active', next_billing: '2027-05-31' });
    expect(onBillingDay.body).toMatchObject({ status: 'active', next_billing: '2027-07-31' });
    expect((await rawItem(sub.id)).gsi2sk).toBe(`2027-07-31#${sub.id}`);
  });

  it('resumes weekly and daily schedules on their next date', async () => {
    const { apiKey, customerId } = await newMerchant();
    const weekly = (await call.create(apiKey, body(customerId, { interval: 'week' }))).body;
    const daily = (await call.create(apiKey, body(customerId, { interval: 'day', interval_count: 3 }))).body;
    await call.pause(apiKey, weekly.id);
    await call.pause(apiKey, daily.id);
    setClock(20);
    const w = await call.resume(apiKey, weekly.id);
    const d = await call.resume(apiKey, daily.id);
    const day = today();
    const tomorrow = addDays(day, 1);
    expect(w.body.next_billing).toBe(billingDateOnOrAfter({ anchor: weekly.current_period_start, interval: 'week', interval_count: 1 }, tomorrow));
    expect(w.body.next_billing > day && w.body.next_billing <= addDays(day, 7)).toBe(true);
    expect(d.body.next_billing).toBe(billingDateOnOrAfter({ anchor: daily.current_period_start, interval: 'day', interval_count: 3 }, tomorrow));
    expect(d.body.next_billing > day && d.body.next_billing <= addDays(day, 3)).toBe(true);
  });

  it.each([
    ['pause', 'paused', ['pause'], 'a paused subscription cannot be paused'],
    ['resume', 'active', [], 'an active subscription cannot be resumed'],
    ['pause', 'cancelled', ['cancel'], 'a cancelled subscription cannot be paused'],
    ['resume', 'cancelled', ['cancel'], 'a cancelled subscription cannot be resumed'],
    ['cancel', 'cancelled', ['cancel'], 'a cancelled subscription cannot be cancelled'],
    ['resume', 'cancelled (after a pause)', ['pause', 'cancel'], 'a cancelled subscription cannot be resumed'],
  ] as const)('answers 400 invalid_state to %s when %s, naming the reason', async (action, _state, before, reason) => {
    const { apiKey, customerId, merchantId } = await newMerchant();
    const { body: sub } = await call.create(apiKey, body(customerId));
    for (const step of before) expect((await call[step](apiKey, sub.id)).status).toBe(200);
    const stateBefore = await rawItem(sub.id);
    const res = await call[action](apiKey, sub.id);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_state', message: `Invalid request body: ${reason}` });
    expect(await rawItem(sub.id)).toEqual(stateBefore);
    const moves = (await listEvents(testOwner(merchantId), {}, { limit: 100 })).data.filter((e) => e.type.startsWith('subscription.'));
    expect(moves).toHaveLength(1 + before.length);
  });

  it('lets exactly one of racing pauses win', async () => {
    const { apiKey, customerId, merchantId } = await newMerchant();
    const { body: sub } = await call.create(apiKey, body(customerId));
    const answers = await Promise.all(Array.from({ length: 6 }, () => call.pause(apiKey, sub.id)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400).every((a) => a.body.error.code === 'invalid_state')).toBe(true);
    expect(await eventsOf(merchantId, 'subscription.paused')).toHaveLength(1);
  });

  it("answers 404 for another merchant's, an unknown and a malformed id", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const { body: theirs } = await call.create(b.apiKey, body(b.customerId));
    for (const id of [theirs.id, 'sub_01jd0z8x9k2m3n4p5q6r7s8t9v', 'sub_nope', 'pay_01jd0z8x9k2m3n4p5q6r7s8t9v']) {
      for (const action of ['pause', 'resume', 'cancel'] as const) {
        const res = await call[action](a.apiKey, id);
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ message: `Resource not found: no subscription ${id} in test mode` });
      }
    }
    expect((await call.list(b.apiKey)).body.data[0].status).toBe('active');
  });
});
