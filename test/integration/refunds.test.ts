import { describe, expect, it } from 'vitest';
import { handler as get } from '../../functions/refunds/get.ts';
import { handler as list } from '../../functions/refunds/list.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { BAD_METADATA, FULL_METADATA } from '../support/metadata.ts';
import { paymentBody, payments } from '../support/payments.ts';

/** Refunds as objects: each refund of a payment readable on its own and listed, per merchant. */
const call = {
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/refunds/${id}`, headers: bearer(key) })),
  list: (key: string, query: Record<string, string> = {}) =>
    invokeHttp(list, apiEvent({ method: 'GET', path: '/api/refunds', headers: bearer(key), query })),
};

async function capturedPayment(apiKey: string): Promise<string> {
  const paid = await payments.create(apiKey, paymentBody());
  await payments.capture(apiKey, paid.body.id);
  return paid.body.id;
}

describe('refunds as objects', () => {
  it('shows each refund of a payment, alone and listed newest first', async () => {
    // Prepare: two partial refunds of one payment, one of another
    const { apiKey } = await newMerchant();
    const paymentId = await capturedPayment(apiKey);
    const first = (await payments.refund(apiKey, paymentId, { amount: 500, reason: 'duplicate' })).body;
    const second = (await payments.refund(apiKey, paymentId, { amount: 700 })).body;
    const other = (await payments.refund(apiKey, await capturedPayment(apiKey), { amount: 100 })).body;
    // Act
    const one = await call.get(apiKey, first.refund_id);
    const ofPayment = await call.list(apiKey, { payment_id: paymentId });
    const all = await call.list(apiKey);
    const pageOne = await call.list(apiKey, { limit: '1' });
    const pageTwo = await call.list(apiKey, { limit: '1', starting_after: pageOne.body.data[0].id });
    // Assess
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id: first.refund_id,
      object: 'refund',
      payment_id: paymentId,
      amount: 500,
      currency: 'USD',
      reason: 'duplicate',
      status: 'succeeded',
      failure_reason: null,
      created_at: expect.any(String),
      livemode: false,
      metadata: {},
    });
    expect(ofPayment.body.data.map((r: { id: string }) => r.id)).toEqual([second.refund_id, first.refund_id]);
    expect(all.body.data.map((r: { id: string }) => r.id)).toEqual([other.refund_id, second.refund_id, first.refund_id]);
    expect([pageOne.body.data[0].id, pageTwo.body.data[0].id]).toEqual([other.refund_id, second.refund_id]);
    expect([pageOne.body.has_more, pageTwo.body.has_more]).toEqual([true, true]);
  });

  it('keeps a refund’s own metadata, shown alone and listed; the payment’s is unchanged', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const paid = await payments.create(apiKey, paymentBody({ metadata: { order_id: '7' } }));
    await payments.capture(apiKey, paid.body.id);
    // Act
    const small = (await payments.refund(apiKey, paid.body.id, { amount: 100, metadata: { ticket: 'T-9' } })).body;
    const full = (await payments.refund(apiKey, paid.body.id, { amount: 100, metadata: FULL_METADATA })).body;
    const none = (await payments.refund(apiKey, paid.body.id, { amount: 100 })).body;
    // Assess
    expect((await call.get(apiKey, small.refund_id)).body.metadata).toEqual({ ticket: 'T-9' });
    expect((await call.get(apiKey, full.refund_id)).body.metadata).toEqual(FULL_METADATA);
    expect((await call.get(apiKey, none.refund_id)).body.metadata).toEqual({});
    const listed = (await call.list(apiKey, { payment_id: paid.body.id })).body.data;
    expect(listed.map((r: { metadata: object }) => r.metadata)).toEqual([{}, FULL_METADATA, { ticket: 'T-9' }]);
    expect((await payments.get(apiKey, paid.body.id)).body.metadata).toEqual({ order_id: '7' });
  });

  it.each(BAD_METADATA)(
    'answers a refund with metadata of %s 400 parameter_invalid naming metadata, and refunds nothing',
    async (_case, metadata) => {
      // Prepare
      const { apiKey } = await newMerchant();
      const paymentId = await capturedPayment(apiKey);
      // Act
      const res = await payments.refund(apiKey, paymentId, { amount: 100, metadata });
      // Assess
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid' });
      expect(res.body.error.param.split('.')[0]).toBe('metadata');
      expect((await call.list(apiKey, { payment_id: paymentId })).body.data).toEqual([]);
    },
  );

  it('keeps merchants apart: another merchant’s refund or payment is 404', async () => {
    const owner = await newMerchant();
    const stranger = await newMerchant();
    const paymentId = await capturedPayment(owner.apiKey);
    const refund = (await payments.refund(owner.apiKey, paymentId, { amount: 300 })).body;
    expect((await call.get(stranger.apiKey, refund.refund_id)).status).toBe(404);
    expect((await call.list(stranger.apiKey, { payment_id: paymentId })).status).toBe(404);
    expect((await call.list(stranger.apiKey)).body.data).toEqual([]);
  });

  it.each([
    ['an unknown refund', (key: string) => call.get(key, 'ref_01m84p0000000000000000000a'), 404],
    ['a malformed refund id', (key: string) => call.get(key, 'pay_01m84p0000000000000000000a'), 404],
    ['a malformed payment_id filter', (key: string) => call.list(key, { payment_id: 'x' }), 400],
    ['a payment without refunds, listed', (key: string) => call.list(key, { payment_id: 'pay_01m84p0000000000000000000a' }), 404],
  ])('answers %s with its status', async (_case, act, status) => {
    const { apiKey } = await newMerchant();
    expect((await act(apiKey)).status).toBe(status);
  });
});
