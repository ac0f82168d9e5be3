import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { type Api, apiClient } from '../support/api-client.ts';
import { newMerchant } from '../support/merchant.ts';
import { freshCard } from '../support/payments.ts';
import { startTestGateway } from '../support/runtime.ts';

/**
 * The README's curl session over HTTP, through the typed client (every answer checked against the OpenAPI
 * document): sign in with the e-mailed code, manage keys, manage customers, pay.
 */
describe('a merchant session over HTTP', () => {
  let gateway: Gateway;
  let api: (credential?: string) => Api;
  beforeAll(async () => {
    gateway = await startTestGateway();
    api = await apiClient(gateway.url);
  });
  afterAll(() => gateway.close());

  it('signs in with the code from the outbox, creates and revokes a key, and manages customers', async () => {
    // Sign in: the code arrives by e-mail (the local outbox)
    const email = `owner-${randomUUID()}@shop.test`;
    const requested = await api().POST('/api/auth/request-otp', { body: { email } });
    const outbox = await (await fetch(`${gateway.url}/_local/outbox`)).json();
    const mail = outbox.data.find((m: { to: string }) => m.to === email);
    const otp = /(\d{6})/.exec(mail.text)![1]!;
    const session = await api().POST('/api/auth/verify-otp', { body: { request_id: requested.data!.request_id, otp } });
    expect(session.response.status).toBe(200);
    if (!session.data || !('token' in session.data)) throw new Error('a Bearer sign-in answers its token');
    const owner = api(session.data.token);

    // Keys: create, list (prefix and last4, never the key), use, revoke → 401
    const created = await owner.POST('/api/api-keys', { body: { name: 'Checkout server', mode: 'test' } });
    expect(created.response.status).toBe(200);
    const key = created.data!.key!;
    const server = api(key);
    const listed = await server.GET('/api/api-keys');
    expect(listed.data!.data).toEqual([expect.objectContaining({ id: created.data!.id, prefix: 'sk_test_', last4: key.slice(-4) })]);
    expect(JSON.stringify(listed.data)).not.toContain(key);

    // Customers: create (idempotently), read, update, list
    const idem = { params: { header: { 'Idempotency-Key': randomUUID() } } };
    const customer = await server.POST('/api/customers', { body: { email: 'jane@example.com', name: 'Jane Doe' }, ...idem });
    const replay = await server.POST('/api/customers', { body: { email: 'jane@example.com', name: 'Jane Doe' }, ...idem });
    expect(customer.response.status).toBe(200);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data!.id).toBe(customer.data!.id);
    const id = { params: { path: { id: customer.data!.id } } };
    const read = await server.GET('/api/customers/{id}', id);
    expect(read.data).toMatchObject({ id: customer.data!.id, email: 'jane@example.com', name: 'Jane Doe' });
    const updated = await server.PUT('/api/customers/{id}', { ...id, body: { phone: '+14155550123' } });
    expect(updated.data).toMatchObject({ name: 'Jane Doe', phone: '+14155550123' });
    const customers = await server.GET('/api/customers', { params: { query: { limit: 10 } } });
    expect(customers.data).toEqual({ object: 'list', data: [updated.data], has_more: false });

    const revoked = await owner.PUT('/api/api-keys/{id}/revoke', { params: { path: { id: created.data!.id } } });
    expect(revoked.data!.status).toBe('revoked');
    const afterRevoke = await server.GET('/api/customers');
    expect(afterRevoke.response.status).toBe(401);
    expect(afterRevoke.error!.error.message).toBe('Invalid API key');
  });

  it("answers 404 for a malformed id and for another merchant's customer", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const malformed = await api(a.apiKey).GET('/api/customers/{id}', { params: { path: { id: 'not-an-id' } } });
    const foreign = await api(a.apiKey).GET('/api/customers/{id}', { params: { path: { id: b.customerId } } });
    expect(malformed.response.status).toBe(404);
    expect(foreign.response.status).toBe(404);
    expect(foreign.error!.error).toMatchObject({
      type: 'invalid_request_error',
      message: `Resource not found: no customer ${b.customerId} in test mode`,
    });
    expect(malformed.error!.error.message).toBe('Resource not found: no customer not-an-id in test mode');
  });

  it('creates, captures and refunds a payment, and routes /api/payments/list before /api/payments/{id}', async () => {
    const merchant = api((await newMerchant()).apiKey);
    const card = { number: freshCard(), exp_month: 12, exp_year: 2034, cvc: '123' };
    const created = await merchant.POST('/api/payments/create', {
      body: { amount: 4999, currency: 'eur', payment_method: { type: 'card', card } },
      params: { header: { 'Idempotency-Key': randomUUID() } },
    });
    expect(created.response.status).toBe(200);
    expect(created.response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(created.data!.routing_decision!.reason).toMatch(/^Smart routing chose (stripe|adyen|braintree)/);
    const payment = { path: { id: created.data!.id } };
    const captured = await merchant.POST('/api/payments/{id}/capture', { params: payment, body: { amount: 4000 } });
    const refunded = await merchant.POST('/api/payments/{id}/refund', { params: payment, body: { amount: 1500 } });
    const list = await merchant.GET('/api/payments/list', { params: { query: { currency: 'EUR' } } });
    expect(captured.data).toMatchObject({ status: 'captured', amount_captured: 4000 });
    expect(refunded.data).toMatchObject({ status: 'refunded', amount: 1500, refund_id: expect.stringMatching(/^ref_/) });
    expect(list.response.status).toBe(200);
    expect(list.data).toMatchObject({ object: 'list', total: 1, data: [{ id: created.data!.id, status: 'refunded' }] });
  });
});
