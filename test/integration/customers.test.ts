import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as getCustomer } from '../../functions/customers/get.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { handler as updateCustomer } from '../../functions/customers/update.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';

const create = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  invokeHttp(createCustomer, apiEvent({ method: 'POST', path: '/api/customers', headers: { ...bearer(key), ...headers }, body }));
const get = (key: string, id: string) =>
  invokeHttp(
    getCustomer,
    apiEvent({ method: 'GET', path: `/api/customers/${id}`, resource: '/api/customers/{id}', pathParameters: { id }, headers: bearer(key) }),
  );
const update = (key: string, id: string, body: unknown) =>
  invokeHttp(
    updateCustomer,
    apiEvent({ method: 'PUT', path: `/api/customers/${id}`, resource: '/api/customers/{id}', pathParameters: { id }, headers: bearer(key), body }),
  );
const list = (key: string, query?: Record<string, string>) =>
  invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers: bearer(key), query }));

describe('customers', () => {
  it('creates, reads and updates a customer', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const created = await create(apiKey, { email: 'Ada@Example.com', name: 'Ada Lovelace', phone: '+442071234567', metadata: { crm: '7' } });
    const read = await get(apiKey, created.body.id);
    const updated = await update(apiKey, created.body.id, { name: 'Ada King', phone: '+442079876543' });
    const reread = await get(apiKey, created.body.id);
    // Assess
    expect(created.status).toBe(200);
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cus_[0-9a-z]{26}$/),
      object: 'customer',
      livemode: false,
      test_clock: null,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      phone: '+442071234567',
      metadata: { crm: '7' },
      default_payment_method: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(read.body).toEqual(created.body);
    expect(updated.body).toEqual({ ...created.body, name: 'Ada King', phone: '+442079876543' });
    expect(reread.body).toEqual(updated.body);
  });

  it('changes the e-mail, stored lowercase, and keeps fields not sent', async () => {
    const { apiKey } = await newMerchant();
    const created = await create(apiKey, { email: 'old@example.com', name: 'Kept' });
    const updated = await update(apiKey, created.body.id, { email: 'New@Example.com' });
    expect(updated.body).toMatchObject({ email: 'new@example.com', name: 'Kept' });
  });

  it("answers 404 for another merchant's customer, for reads and updates alike", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const read = await get(a.apiKey, b.customerId);
    const write = await update(a.apiKey, b.customerId, { name: 'Hijacked' });
    expect(read.status).toBe(404);
    expect(read.body.error).toMatchObject({ type: 'invalid_request_error', message: `Resource not found: no customer ${b.customerId} in test mode` });
    expect(write.status).toBe(404);
    expect((await get(b.apiKey, b.customerId)).body.name).toBe('Jane Doe');
  });

  it.each(['cus_123', 'pay_01jdxq3m5n6p7r8s9t0v1w2x3y', 'CUS_01JDXQ3M5N6P7R8S9T0V1W2X3Y', 'cus_01jdxq3m5n6p7r8s9t0v1w2x3y', '%00'])(
    'answers 404 for the id %s',
    async (id) => {
      const { apiKey } = await newMerchant();
      expect((await get(apiKey, id)).status).toBe(404);
      expect((await update(apiKey, id, { name: 'x' })).status).toBe(404);
    },
  );

  it.each([
    ['malformed JSON', '{"name":', { 'Content-Type': 'application/json' }],
    ['a form body', 'name=x', { 'Content-Type': 'application/x-www-form-urlencoded' }],
  ])('answers 404 for a malformed id before reading the body, even with %s', async (_case, body, headers) => {
    const { apiKey } = await newMerchant();
    const res = await invokeHttp(
      updateCustomer,
      apiEvent({
        method: 'PUT',
        path: '/api/customers/foo',
        resource: '/api/customers/{id}',
        pathParameters: { id: 'foo' },
        headers: { ...bearer(apiKey), ...headers },
        body,
      }),
    );
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_missing' });
  });

  it('lists newest first across pages in both directions', async () => {
    // Prepare: 5 customers, plus the demo one made with the merchant
    const { apiKey, customerId } = await newMerchant();
    const ids = [customerId];
    for (let i = 0; i < 5; i++) ids.push((await create(apiKey, { email: `c${i}@example.com` })).body.id);
    const newestFirst = [...ids].reverse();
    // Act
    const page1 = await list(apiKey, { limit: '2' });
    const page2 = await list(apiKey, { limit: '2', starting_after: page1.body.data[1].id });
    const page3 = await list(apiKey, { limit: '2', starting_after: page2.body.data[1].id });
    const back = await list(apiKey, { limit: '2', ending_before: page3.body.data[0].id });
    const all = await list(apiKey, { limit: '100' });
    // Assess
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(0, 2));
    expect(page1.body.has_more).toBe(true);
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(2, 4));
    expect(page3.body.data.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(4, 6));
    expect(page3.body.has_more).toBe(false);
    expect(back.body.data.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(2, 4));
    expect(back.body.has_more).toBe(true);
    expect(all.body.data).toHaveLength(6);
  });

  it('lists only the merchant’s own customers', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const res = await list(a.apiKey, { limit: '100' });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([a.customerId]);
    expect(JSON.stringify(res.body)).not.toContain(b.customerId);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ starting_after: 'pay_01jdxq3m5n6p7r8s9t0v1w2x3y' }, 'starting_after'],
  ])('answers 400 to the list query %o', async (query, param) => {
    const { apiKey } = await newMerchant();
    const res = await list(apiKey, query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/^Invalid request body: ./), param });
  });
});

describe('request bodies', () => {
  const raw = async (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) => {
    const { apiKey } = await newMerchant();
    return invokeHttp(createCustomer, apiEvent({ method: 'POST', path: '/api/customers', headers: { ...bearer(apiKey), ...headers }, body }));
  };

  it.each([
    ['malformed JSON', '{"email": ', undefined, 'invalid_json'],
    ['a JSON array', '[{"email":"a@b.co"}]', undefined, 'parameter_invalid'],
    ['a JSON string', '"a@b.co"', undefined, 'parameter_invalid'],
    ['JSON null', 'null', undefined, 'parameter_invalid'],
    ['a form body', 'email=a%40b.co', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'invalid_content_type'],
    ['no Content-Type', '{"email":"a@b.co"}', {}, 'invalid_content_type'],
    ['a body over 64 KB', JSON.stringify({ email: 'a@b.co', name: 'x'.repeat(70_000) }), undefined, 'body_too_large'],
  ])('answers 400 to %s', async (_case, body, headers, code) => {
    const res = await raw(body, headers);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, message: expect.stringMatching(/^Invalid request body: ./) });
  });

  it('keeps every valid metadata key, including ones named like object internals', async () => {
    const { apiKey } = await newMerchant();
    const metadata = { constructor: 'acme', prototype: 'p', toString: 't', hasOwnProperty: 'h', order: '1' };
    const created = await create(apiKey, { email: 'meta@example.com', metadata });
    expect(created.status).toBe(200);
    expect(created.body.metadata).toEqual(metadata);
    expect((await get(apiKey, created.body.id)).body.metadata).toEqual(metadata);
  });

  it('accepts a charset in the Content-Type and ignores unknown fields', async () => {
    const res = await raw(JSON.stringify({ email: 'a@b.co', favourite_colour: 'teal' }), { 'Content-Type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('favourite_colour');
  });

  it.each([
    [{}, 'email', 'parameter_missing'],
    [{ email: 'jane' }, 'email', 'parameter_invalid'],
    [{ email: 'a@b.co', phone: '555-0123' }, 'phone', 'parameter_invalid'],
    [{ email: 'a@b.co', name: 42 }, 'name', 'parameter_invalid'],
    [{ email: 'a@b.co', metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`, 'parameter_invalid'],
    [{ email: 'a@b.co', metadata: ['v'] }, 'metadata', 'parameter_invalid'],
    [{ email: 'a@b.co', metadata: { k: 'v'.repeat(501) } }, 'metadata.k', 'parameter_invalid'],
    [{ email: 'a@b.co', metadata: { constructor: 5 } }, 'metadata.constructor', 'parameter_invalid'],
    [{ email: 'a@b.co', metadata: JSON.parse('{"__proto__":"x"}') as object }, 'metadata.__proto__', 'parameter_invalid'],
  ])('answers 400 to %o naming the field', async (body, param, code) => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param, message: expect.stringMatching(/^Invalid request body(: .+)?$/) });
  });
});

describe('idempotency', () => {
  it('replays the first answer for the same key and body, creating one customer', async () => {
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const first = await create(apiKey, { email: 'once@example.com' }, { 'Idempotency-Key': key });
    const replay = await create(apiKey, { email: 'once@example.com' }, { 'Idempotency-Key': key });
    const listed = await list(apiKey, { limit: '100' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(listed.body.data.filter((c: { email: string }) => c.email === 'once@example.com')).toHaveLength(1);
  });

  it('compares bodies without any field named cvc, at any depth: the same body with another cvc replays', async () => {
    // An ignored field, so that nothing named cvc is stored (the card-data test scans the table for that name)
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const first = await create(apiKey, { email: 'meta-cvc@example.com', extra: { cvc: 'order-A' } }, { 'Idempotency-Key': key });
    const other = await create(apiKey, { email: 'meta-cvc@example.com', extra: { cvc: 'order-B' } }, { 'Idempotency-Key': key });
    expect(other.status, other.rawBody).toBe(200);
    expect(other.headers['idempotent-replayed']).toBe('true');
    expect(other.body.id).toBe(first.body.id);
  });

  it('refuses the same key with another body: 400 idempotency_key_reused', async () => {
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    await create(apiKey, { email: 'first@example.com' }, { 'Idempotency-Key': key });
    const res = await create(apiKey, { email: 'second@example.com' }, { 'Idempotency-Key': key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it('scopes keys to the merchant', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const key = randomUUID();
    const fromA = await create(a.apiKey, { email: 'same@example.com' }, { 'Idempotency-Key': key });
    const fromB = await create(b.apiKey, { email: 'same@example.com' }, { 'Idempotency-Key': key });
    expect(fromB.headers['idempotent-replayed']).toBeUndefined();
    expect(fromB.body.id).not.toBe(fromA.body.id);
  });

  it('stores nothing for a request that fails validation', async () => {
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const invalid = await create(apiKey, { email: 'nope' }, { 'Idempotency-Key': key });
    const valid = await create(apiKey, { email: 'fixed@example.com' }, { 'Idempotency-Key': key });
    expect(invalid.status).toBe(400);
    expect(valid.status).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('yields exactly one customer for 20 parallel creates with one key; the rest replay or get 409', async () => {
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(apiKey, { email: 'race@example.com' }, { 'Idempotency-Key': key })));
    const listed = await list(apiKey, { limit: '100' });
    const created = answers.filter((a) => a.status === 200);
    expect(listed.body.data.filter((c: { email: string }) => c.email === 'race@example.com')).toHaveLength(1);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    for (const a of answers) {
      if (a.status === 409) expect(a.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
      else expect(a.status).toBe(200);
    }
  });

  it('refuses a key over 255 characters', async () => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, { email: 'a@b.co' }, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('Idempotency-Key');
  });
});
