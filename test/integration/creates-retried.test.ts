import { afterEach, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as listKeys } from '../../functions/api-keys/list.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { handler as createRule } from '../../functions/routing/rules/create.ts';
import { handler as listRules } from '../../functions/routing/rules/list.ts';
import { handler as configureWebhook } from '../../functions/webhooks/configure.ts';
import { handler as listWebhooks } from '../../functions/webhooks/list.ts';
import { clock } from '../../shared/model/clock.ts';
import { db } from '../../shared/store/client.ts';
import { apiEvent, type HttpResult, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';

/**
 * A create whose answer is lost after DynamoDB applied its write (the function crashed, or its connection dropped)
 * answers 500 and keeps its Idempotency-Key in progress; the client's retry with the same key, once the lease has
 * run out, runs the request again with the same origin. It must answer the object the first run created, not a
 * second one, and count it once against the merchant's caps.
 */

/** The item type whose next write loses its answer after the table applied it (undefined: no fault armed). */
const lose: { type: string | undefined } = { type: undefined };

type WriteInput = { Item?: { type?: unknown }; TransactItems?: Array<{ Put?: { Item?: { type?: unknown } } }> };
const writes = (input: WriteInput, type: string) => input.Item?.type === type || (input.TransactItems ?? []).some((i) => i.Put?.Item?.type === type);

db.middlewareStack.add(
  (next) => async (args) => {
    const out = await next(args);
    if (lose.type && writes(args.input as WriteInput, lose.type)) {
      lose.type = undefined;
      throw new Error('socket hang up: the answer was lost after the table applied the write');
    }
    return out;
  },
  { step: 'initialize', priority: 'high', name: 'loseCreateAnswer' },
);

const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
  lose.type = undefined;
});

interface CreateFlow {
  /** the `type` of the item the create writes */
  itemType: string;
  create: (apiKey: string, body: unknown, headers?: Record<string, string>) => Promise<HttpResult>;
  list: (apiKey: string) => Promise<HttpResult>;
  body: (i: number) => unknown;
  /** the merchant's objects of this kind before any create (a new merchant has its demo key and customer) */
  preexisting: number;
  /** a field shown only in the first answer of a create */
  shownOnce?: string;
}

const post =
  (handler: Parameters<typeof invokeHttp>[0], path: string) =>
  (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
    invokeHttp(handler, apiEvent({ method: 'POST', path, headers: { ...bearer(apiKey), ...headers }, body }));
const get = (handler: Parameters<typeof invokeHttp>[0], path: string) => (apiKey: string) =>
  invokeHttp(handler, apiEvent({ method: 'GET', path, headers: bearer(apiKey), query: { limit: '100' } }));

const FLOWS: Record<string, CreateFlow> = {
  customer: {
    itemType: 'customer',
    create: post(createCustomer, '/api/customers'),
    list: get(listCustomers, '/api/customers'),
    body: (i) => ({ email: `retried-${i}@example.com`, name: 'Retried' }),
    preexisting: 1,
  },
  'API key': {
    itemType: 'api_key',
    create: post(createKey, '/api/api-keys'),
    list: get(listKeys, '/api/api-keys'),
    body: (i) => ({ name: `retried ${i}`, mode: 'test' }),
    preexisting: 1,
    shownOnce: 'key',
  },
  'routing rule': {
    itemType: 'routing_rule',
    create: post(createRule, '/api/routing/rules'),
    list: get(listRules, '/api/routing/rules'),
    body: (i) => ({ name: `retried ${i}`, provider: 'adyen', conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }] }),
    preexisting: 0,
  },
  'webhook endpoint': {
    itemType: 'webhook',
    create: post(configureWebhook, '/api/webhooks/configure'),
    list: get(listWebhooks, '/api/webhooks'),
    body: (i) => ({ url: `http://127.0.0.1:9/retried-${i}`, events: ['*'] }),
    preexisting: 0,
    shownOnce: 'secret',
  },
};

/** The create under a lost answer, then the client's retry with the same key after the lease has run out. */
async function createWithLostAnswer(flow: CreateFlow, apiKey: string, body: unknown) {
  const headers = { 'Idempotency-Key': `retried-${Math.random()}` };
  lose.type = flow.itemType;
  const first = await flow.create(apiKey, body, headers);
  const start = clock.now();
  clock.now = () => start + 2 * 60_000;
  const retry = await flow.create(apiKey, body, headers);
  const replay = await flow.create(apiKey, body, headers);
  return { first, retry, replay };
}

describe.each(Object.entries(FLOWS))('a retried %s create', (_name, flow) => {
  it('answers the object the first run created, once, with its id and creation time', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const { first, retry, replay } = await createWithLostAnswer(flow, apiKey, flow.body(1));
    const listed = (await flow.list(apiKey)).body.data as Array<Record<string, unknown>>;
    // Assess
    expect(first.status).toBe(500);
    expect(retry.status).toBe(200);
    expect(listed).toHaveLength(flow.preexisting + 1);
    const created = listed.find((o) => o.id === retry.body.id);
    expect(created).toBeDefined();
    expect(retry.body.created_at).toBe(created!.created_at);
    if (flow.shownOnce) expect(retry.body[flow.shownOnce]).toBeUndefined();
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(retry.body);
  });

  it('still creates one object per request without a lost answer, the secret shown once', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const a = await flow.create(apiKey, flow.body(1), { 'Idempotency-Key': `a-${Math.random()}` });
    const b = await flow.create(apiKey, flow.body(2), { 'Idempotency-Key': `b-${Math.random()}` });
    const listed = (await flow.list(apiKey)).body.data as Array<Record<string, unknown>>;
    // Assess
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.id).not.toBe(b.body.id);
    if (flow.shownOnce) expect([typeof a.body[flow.shownOnce], typeof b.body[flow.shownOnce]]).toEqual(['string', 'string']);
    expect(listed).toHaveLength(flow.preexisting + 2);
  });
});

describe.each([
  { name: 'routing rules', flow: FLOWS['routing rule']!, cap: 50, code: 'too_many_rules' },
  { name: 'webhook endpoints', flow: FLOWS['webhook endpoint']!, cap: 16, code: 'too_many_webhooks' },
])('the cap on $name', ({ flow, cap, code }) => {
  it('counts a retried create once', async () => {
    // Prepare: two below the cap
    const { apiKey } = await newMerchant();
    for (let i = 0; i < cap - 2; i++) expect((await flow.create(apiKey, flow.body(100 + i))).status).toBe(200);
    // Act: one create retried after its answer was lost, then two more
    const { retry } = await createWithLostAnswer(flow, apiKey, flow.body(1));
    const last = await flow.create(apiKey, flow.body(2));
    const beyond = await flow.create(apiKey, flow.body(3));
    const listed = (await flow.list(apiKey)).body.data;
    // Assess
    expect(retry.status).toBe(200);
    expect(last.status).toBe(200);
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.code).toBe(code);
    expect(listed).toHaveLength(cap);
  });

  it('answers the object a retried create made even once the cap is reached', async () => {
    // Prepare: one below the cap
    const { apiKey } = await newMerchant();
    for (let i = 0; i < cap - 1; i++) expect((await flow.create(apiKey, flow.body(100 + i))).status).toBe(200);
    // Act: the last create, retried after its answer was lost (the merchant is at the cap by then)
    const { first, retry } = await createWithLostAnswer(flow, apiKey, flow.body(1));
    const listed = (await flow.list(apiKey)).body.data as Array<{ id: string }>;
    // Assess
    expect(first.status).toBe(500);
    expect(retry.status).toBe(200);
    expect(listed).toHaveLength(cap);
    expect(listed.map((o) => o.id)).toContain(retry.body.id);
  });
});
