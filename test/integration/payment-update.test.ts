import { describe, expect, it } from 'vitest';
import { handler as update } from '../../functions/payments/update.ts';
import { listEvents } from '../../shared/store/events.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf, testOwner } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';

const put = (key: string, id: string, body: unknown, headers: Record<string, string> = {}) =>
  invokeHttp(update, apiEvent({ method: 'PUT', path: `/api/payments/${id}`, headers: { ...bearer(key), ...headers }, body }));

describe('PUT /api/payments/:id', () => {
  it('replaces the metadata and the description, keeps everything else, and emits no event', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const created = (await payments.create(apiKey, paymentBody({ description: 'Order #1', metadata: { order_id: '1', channel: 'web' } }))).body;
    const before = (await payments.get(apiKey, created.id)).body;
    const eventsBefore = (await listEvents(testOwner(merchantId), {}, { limit: 100 })).data.length;
    // Act
    const res = await put(apiKey, created.id, { description: 'Order #1 (gift)', metadata: { order_id: '1b' } });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, description: 'Order #1 (gift)', metadata: { order_id: '1b' } });
    expect((await payments.get(apiKey, created.id)).body).toEqual(res.body);
    expect((await listEvents(testOwner(merchantId), {}, { limit: 100 })).data).toHaveLength(eventsBefore);
  });

  it('changes only the field sent; null clears the description, {} empties the metadata', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = (await payments.create(apiKey, paymentBody({ description: 'Order #2', metadata: { order_id: '2' } }))).body;
    // Act
    const onlyMetadata = await put(apiKey, created.id, { metadata: { order_id: '2b' } });
    const cleared = await put(apiKey, created.id, { description: null, metadata: {} });
    // Assess
    expect(onlyMetadata.body).toMatchObject({ description: 'Order #2', metadata: { order_id: '2b' } });
    expect(cleared.body).toMatchObject({ description: null, metadata: {} });
  });

  it('changes captured, voided and declined payments alike', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const captured = (await payments.create(apiKey, paymentBody())).body;
    await payments.capture(apiKey, captured.id);
    const voided = (await payments.create(apiKey, paymentBody())).body;
    await payments.void(apiKey, voided.id);
    const declined = (await payments.create(apiKey, paymentBody({}, CARDS.genericDecline))).body.error.payment_id;
    // Act
    const answers = await Promise.all([captured.id, voided.id, declined].map((id) => put(apiKey, id, { metadata: { seen: 'yes' } })));
    // Assess
    expect(answers.map((r) => [r.status, r.body.status, r.body.metadata])).toEqual([
      [200, 'captured', { seen: 'yes' }],
      [200, 'voided', { seen: 'yes' }],
      [200, 'failed', { seen: 'yes' }],
    ]);
  });

  it.each([
    [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
    [{ metadata: { k: 'v'.repeat(501) } }, 'metadata'],
    [{ metadata: { k: 5 } }, 'metadata'],
    [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    [{ metadata: ['v'] }, 'metadata'],
    [{ description: 'd'.repeat(1001) }, 'description'],
    [{ description: 42 }, 'description'],
  ])('answers 400 parameter_invalid to %o and changes nothing', async (change, param) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = (await payments.create(apiKey, paymentBody({ metadata: { order_id: '3' } }))).body;
    // Act
    const res = await put(apiKey, created.id, change);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid' });
    expect(res.body.error.param.split('.')[0]).toBe(param);
    expect(res.body.error.message).not.toMatch(/expected/);
    expect((await payments.get(apiKey, created.id)).body.metadata).toEqual({ order_id: '3' });
  });

  it('ignores the fields it does not change (amount, currency, customer)', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = (await payments.create(apiKey, paymentBody())).body;
    const before = (await payments.get(apiKey, created.id)).body;
    // Act
    const res = await put(apiKey, created.id, { amount: 1, currency: 'JPY', customer: { email: 'x@example.com' } });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
  });

  it("answers 404 for another merchant's, the other mode's, an unknown and a malformed id, changing nothing", async () => {
    // Prepare
    const a = await newMerchant();
    const b = await newMerchant();
    const theirs = (await payments.create(b.apiKey, paymentBody({ metadata: { owner: 'b' } }))).body;
    const mine = (await payments.create(a.apiKey, paymentBody({ metadata: { owner: 'a' } }))).body;
    const liveSession = await sessionOf(a.merchantId);
    // Act
    const answers = [
      await put(a.apiKey, theirs.id, { metadata: {} }),
      await put(a.apiKey, 'pay_01jd0z8x9k2m3n4p5q6r7s8t9v', { metadata: {} }),
      await put(a.apiKey, 'pay_nope', { metadata: {} }),
      await put(liveSession, mine.id, { metadata: {} }, { Livemode: 'true' }),
    ];
    // Assess
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'resource_missing' });
    }
    expect((await payments.get(b.apiKey, theirs.id)).body.metadata).toEqual({ owner: 'b' });
    expect((await payments.get(a.apiKey, mine.id)).body.metadata).toEqual({ owner: 'a' });
  });
});
