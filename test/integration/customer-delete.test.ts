import { describe, expect, it } from 'vitest';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as deleteCustomer } from '../../functions/customers/delete.ts';
import { handler as getCustomer } from '../../functions/customers/get.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { handler as cancelSubscription } from '../../functions/subscriptions/cancel.ts';
import { handler as createSubscription } from '../../functions/subscriptions/create.ts';
import { handler as pauseSubscription } from '../../functions/subscriptions/pause.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

const call = {
  create: (key: string, body: unknown) =>
    invokeHttp(createCustomer, apiEvent({ method: 'POST', path: '/api/customers', headers: bearer(key), body })),
  get: (key: string, id: string) => invokeHttp(getCustomer, apiEvent({ method: 'GET', path: `/api/customers/${id}`, headers: bearer(key) })),
  list: (key: string) =>
    invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers: bearer(key), query: { limit: '100' } })),
  delete: (key: string, id: string, headers: Record<string, string> = {}) =>
    invokeHttp(deleteCustomer, apiEvent({ method: 'DELETE', path: `/api/customers/${id}`, headers: { ...bearer(key), ...headers } })),
  subscribe: (key: string, customerId: string) =>
    invokeHttp(
      createSubscription,
      apiEvent({
        method: 'POST',
        path: '/api/subscriptions',
        headers: bearer(key),
        body: { customer_id: customerId, plan: 'Pro', amount: 900, currency: 'usd', interval: 'month' },
      }),
    ),
  pause: (key: string, id: string) =>
    invokeHttp(pauseSubscription, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/pause`, headers: bearer(key) })),
  cancel: (key: string, id: string) =>
    invokeHttp(cancelSubscription, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/cancel`, headers: bearer(key) })),
};

describe('DELETE /api/customers/:id', () => {
  it('deletes: 404 afterwards, gone from the list, its payments keep customer_id, a later payment is not linked', async () => {
    // Prepare: a customer linked to a payment by its e-mail
    const { apiKey } = await newMerchant();
    const customer = (await call.create(apiKey, { email: 'leaving@example.com', name: 'Leaving' })).body;
    const paid = (await payments.create(apiKey, paymentBody({ customer: { email: 'leaving@example.com' } }))).body;
    expect(paid.customer_id).toBe(customer.id);
    // Act
    const res = await call.delete(apiKey, customer.id);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: customer.id, object: 'customer', deleted: true });
    expect((await call.get(apiKey, customer.id)).status).toBe(404);
    expect((await call.list(apiKey)).body.data.map((c: { id: string }) => c.id)).not.toContain(customer.id);
    expect((await payments.get(apiKey, paid.id)).body.customer_id).toBe(customer.id);
    const later = (await payments.create(apiKey, paymentBody({ customer: { email: 'leaving@example.com' } }))).body;
    expect(later.customer_id).toBeNull();
    const again = await call.delete(apiKey, customer.id);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'resource_missing' });
  });

  it('answers 400 invalid_state naming an active or paused subscription, and deletes once it is cancelled', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const customer = (await call.create(apiKey, { email: 'subscribed@example.com' })).body;
    const active = (await call.subscribe(apiKey, customer.id)).body;
    const paused = (await call.subscribe(apiKey, customer.id)).body;
    await call.pause(apiKey, paused.id);
    // Act
    const refused = await call.delete(apiKey, customer.id);
    await call.cancel(apiKey, active.id);
    const stillPaused = await call.delete(apiKey, customer.id);
    await call.cancel(apiKey, paused.id);
    const deleted = await call.delete(apiKey, customer.id);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_state' });
    expect(refused.body.error.message).toMatch(new RegExp(`(active|paused) subscription \\((${active.id}|${paused.id})\\); cancel it first`));
    expect(stillPaused.status).toBe(400);
    expect(stillPaused.body.error.message).toContain(`a paused subscription (${paused.id})`);
    expect(deleted.status).toBe(200);
    expect((await call.get(apiKey, customer.id)).status).toBe(404);
  });

  it("answers 404 for another merchant's, the other mode's, an unknown and a malformed id, deleting nothing", async () => {
    // Prepare
    const a = await newMerchant();
    const b = await newMerchant();
    const liveSession = await sessionOf(a.merchantId);
    // Act
    const answers = [
      await call.delete(a.apiKey, b.customerId),
      await call.delete(a.apiKey, 'cus_01jd0z8x9k2m3n4p5q6r7s8t9v'),
      await call.delete(a.apiKey, 'cus_nope'),
      await call.delete(liveSession, a.customerId, { Livemode: 'true' }),
    ];
    // Assess
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
    }
    expect((await call.get(b.apiKey, b.customerId)).status).toBe(200);
    expect((await call.get(a.apiKey, a.customerId)).status).toBe(200);
  });
});
