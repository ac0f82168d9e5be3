import { describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as timeline } from '../../functions/payments/timeline.ts';
import { handler as getRefund } from '../../functions/refunds/get.ts';
import { handler as listRefunds } from '../../functions/refunds/list.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { freshCard, paymentBody, payments } from '../support/payments.ts';

/**
 * Test and live apart (DECISIONS "Authentication"): an object of the other mode answers 404, as if absent. So far for
 * payments and refunds (by id, and what is done to them); lists, counters and the other objects follow.
 */
describe('test and live mode', () => {
  it("a live key finds none of the merchant's test payments or refunds, nor acts on them", async () => {
    // Prepare: a captured, partly refunded test payment, and a live key of the same merchant
    const { apiKey, merchantId } = await newMerchant();
    const paid = await payments.create(apiKey, paymentBody({ amount: 3_000 }, freshCard()));
    await payments.capture(apiKey, paid.body.id);
    const refunded = await payments.refund(apiKey, paid.body.id, { amount: 1_000 });
    const live = await invokeHttp(
      createKey,
      apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
    );
    const liveKey: string = live.body.key;
    const get = (handler: Parameters<typeof invokeHttp>[0], key: string, path: string, query?: Record<string, string>) =>
      invokeHttp(handler, apiEvent({ method: 'GET', path, headers: bearer(key), query }));
    // Act
    const answers = {
      get: await payments.get(liveKey, paid.body.id),
      capture: await payments.capture(liveKey, paid.body.id),
      void: await payments.void(liveKey, paid.body.id),
      refund: await payments.refund(liveKey, paid.body.id, { amount: 500 }),
      timeline: await get(timeline, liveKey, `/api/payments/${paid.body.id}/timeline`),
      refundById: await get(getRefund, liveKey, `/api/refunds/${refunded.body.refund_id}`),
      refundsOfPayment: await get(listRefunds, liveKey, '/api/refunds', { payment_id: paid.body.id }),
    };
    // Assess: 404 each, and nothing changed for the test key
    for (const [name, answer] of Object.entries(answers)) expect(answer.status, name).toBe(404);
    expect((await payments.get(apiKey, paid.body.id)).body).toMatchObject({ status: 'refunded', amount_captured: 3_000, amount_refunded: 1_000 });
    expect((await get(getRefund, apiKey, `/api/refunds/${refunded.body.refund_id}`)).status).toBe(200);
  });
});
