import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { newMerchant } from '../support/merchant.ts';
import { freshCard } from '../support/payments.ts';
import { startTestGateway } from '../support/runtime.ts';

/** The README's curl session over HTTP: sign in with the e-mailed code, manage keys, manage customers. */
describe('a merchant session over HTTP', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());

  const call = async (method: string, path: string, credential?: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: {
        ...(credential && { Authorization: `Bearer ${credential}` }),
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  it('signs in with the code from the outbox, creates and revokes a key, and manages customers', async () => {
    // Sign in: the code arrives by e-mail (the local outbox)
    const email = `owner-${randomUUID()}@shop.test`;
    const requested = await call('POST', '/api/auth/request-otp', undefined, { email });
    const outbox = await (await fetch(`${gateway.url}/_local/outbox`)).json();
    const mail = outbox.data.find((m: { to: string }) => m.to === email);
    const otp = /(\d{6})/.exec(mail.text)![1];
    const session = await call('POST', '/api/auth/verify-otp', undefined, { request_id: requested.body.request_id, otp });
    expect(session.status).toBe(200);
    const token = session.body.token;

    // Keys: create, list (prefix and last4, never the key), use, revoke → 401
    const created = await call('POST', '/api/api-keys', token, { name: 'Checkout server', mode: 'test' });
    expect(created.status).toBe(200);
    const key = created.body.key;
    const listed = await call('GET', '/api/api-keys', key);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.body.id, prefix: 'sk_test_', last4: key.slice(-4) })]);
    expect(JSON.stringify(listed.body)).not.toContain(key);

    // Customers: create (idempotently), read, update, list
    const idem = { 'Idempotency-Key': randomUUID() };
    const customer = await call('POST', '/api/customers', key, { email: 'jane@example.com', name: 'Jane Doe' }, idem);
    const replay = await call('POST', '/api/customers', key, { email: 'jane@example.com', name: 'Jane Doe' }, idem);
    expect(customer.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(customer.body.id);
    const read = await call('GET', `/api/customers/${customer.body.id}`, key);
    expect(read.body).toMatchObject({ id: customer.body.id, email: 'jane@example.com', name: 'Jane Doe' });
    const updated = await call('PUT', `/api/customers/${customer.body.id}`, key, { phone: '+14155550123' });
    expect(updated.body).toMatchObject({ name: 'Jane Doe', phone: '+14155550123' });
    const customers = await call('GET', '/api/customers?limit=10', key);
    expect(customers.body).toEqual({ object: 'list', data: [updated.body], has_more: false });

    const revoked = await call('PUT', `/api/api-keys/${created.body.id}/revoke`, token);
    expect(revoked.body.status).toBe('revoked');
    const afterRevoke = await call('GET', '/api/customers', key);
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body.error.message).toBe('Invalid API key');
  });

  it("answers 404 for a malformed id and for another merchant's customer", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const malformed = await call('GET', '/api/customers/not-an-id', a.apiKey);
    const foreign = await call('GET', `/api/customers/${b.customerId}`, a.apiKey);
    expect(malformed.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ type: 'invalid_request_error', message: 'Resource not found' });
  });

  it('creates, captures and refunds a payment, and routes /api/payments/list before /api/payments/{id}', async () => {
    const { apiKey } = await newMerchant();
    const body = { amount: 4999, currency: 'eur', payment_method: { type: 'card', card: { number: freshCard(), exp_month: 12, exp_year: 2034, cvc: '123' } } };
    const created = await call('POST', '/api/payments/create', apiKey, body, { 'Idempotency-Key': randomUUID() });
    expect(created.status).toBe(200);
    expect(created.headers.get('x-ratelimit-limit')).toBe('100');
    expect(created.body.routing_decision.reason).toMatch(/^Smart routing chose (stripe|adyen|braintree)/);
    const captured = await call('POST', `/api/payments/${created.body.id}/capture`, apiKey, { amount: 4000 });
    const refunded = await call('POST', `/api/payments/${created.body.id}/refund`, apiKey, { amount: 1500 });
    const list = await call('GET', '/api/payments/list?currency=EUR', apiKey);
    expect(captured.body).toMatchObject({ status: 'captured', amount_captured: 4000 });
    expect(refunded.body).toMatchObject({ status: 'refunded', amount: 1500, refund_id: expect.stringMatching(/^ref_/) });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', total: 1, data: [{ id: created.body.id, status: 'refunded' }] });
  });
});
