import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../shared/model/clock.ts';
import { LOCAL_TIMEOUT_FACTOR } from '../../infra/local/lambda.ts';
import { ProvidersUnavailable } from '../../shared/model/errors.ts';
import { idFor, type Origin } from '../../shared/model/ids.ts';
import { http } from '../../shared/http/index.ts';
import { db, isConditionFailure, TABLE } from '../../shared/store/client.ts';
import { apiEvent, fakeContext, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { exampleId } from '../../shared/model/ids.ts';
import { cardBody, paymentMethods, publishableKeyOf } from '../support/payment-methods.ts';
import { freshCard, paymentBody, payments } from '../support/payments.ts';

const Body = v.object({ amount: v.number() });
const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
});

/**
 * A use case as the domain writes one: it mints its object's id from the request's origin and creates it with a
 * conditional put, so a rerun finds what an earlier run committed. `failAfterWrite` throws once the write is done.
 */
function widgetEndpoint(failAfterWrite: () => Error | undefined) {
  const runs: Origin[] = [];
  const handler = http({ auth: 'merchant', permission: 'payments:write', body: Body, idempotent: true }, async ({ body, origin }) => {
    runs.push(origin);
    const id = idFor('payment', origin);
    let created = true;
    try {
      await db.send(
        new PutCommand({
          TableName: TABLE,
          Item: { pk: `TEST#${id}`, sk: 'TEST', amount: body.amount },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
      created = false;
    }
    const error = failAfterWrite();
    if (error) throw error;
    return { id, created };
  });
  return { handler, runs };
}

const stored = async (id: string) => (await db.send(new GetCommand({ TableName: TABLE, Key: { pk: `TEST#${id}`, sk: 'TEST' } }))).Item;

async function post(handler: ReturnType<typeof widgetEndpoint>['handler'], apiKey: string, key: string, amount = 100) {
  const event = apiEvent({ method: 'POST', path: '/api/widgets', headers: { ...bearer(apiKey), 'Idempotency-Key': key }, body: { amount } });
  return invokeHttp(handler, event, fakeContext({ timeout: 10 }));
}

describe('idempotency after a server failure', () => {
  it('keeps the key in progress after an unknown error: a retry within the lease gets 409 with Retry-After', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const { handler, runs } = widgetEndpoint(() => new Error('socket hang up'));
    // Act
    const first = await post(handler, apiKey, key);
    const retry = await post(handler, apiKey, key);
    // Assess
    expect(first.status).toBe(500);
    expect(retry.status).toBe(409);
    expect(retry.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
    expect(retry.body.error.message).toMatch(/^Idempotency key in use/);
    const retryAfter = Number(retry.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // the lock lasts the function's remaining time (its local deadline) and 5 s more
    expect(retryAfter).toBeLessThanOrEqual(10 * LOCAL_TIMEOUT_FACTOR + 6);
    expect(runs).toHaveLength(1);
  });

  it('runs a retry after the lease ends with the same origin, which finds what the first run committed', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    let failures = 1;
    const { handler, runs } = widgetEndpoint(() => (failures-- > 0 ? new Error('ETIMEDOUT') : undefined));
    const first = await post(handler, apiKey, key);
    const start = clock.now();
    clock.now = () => start + 60_000;
    // Act
    const retry = await post(handler, apiKey, key);
    const replay = await post(handler, apiKey, key);
    // Assess
    expect(first.status).toBe(500);
    expect(retry.status).toBe(200);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[0]!.seed).not.toBeNull();
    expect(retry.body).toEqual({ id: idFor('payment', runs[0]!), created: false });
    expect(await stored(retry.body.id)).toMatchObject({ amount: 100 });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(retry.body);
  });

  it('lets an immediate retry run again when the error declares nothing was committed', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    let failures = 1;
    const { handler, runs } = widgetEndpoint(() => (failures-- > 0 ? new ProvidersUnavailable() : undefined));
    // Act
    const first = await post(handler, apiKey, key);
    const retry = await post(handler, apiKey, key);
    // Assess
    expect(first.status).toBe(500);
    expect(first.body.error.code).toBe('providers_unavailable');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(runs).toHaveLength(2);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('still replays a completed request without running it again', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const { handler, runs } = widgetEndpoint(() => undefined);
    // Act
    const first = await post(handler, apiKey, key);
    const replay = await post(handler, apiKey, key);
    // Assess
    expect(first.status).toBe(200);
    expect(first.body.created).toBe(true);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(runs).toHaveLength(1);
  });

  it('gives requests without a key a fresh origin every time', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const { handler, runs } = widgetEndpoint(() => undefined);
    const event = () => apiEvent({ method: 'POST', path: '/api/widgets', headers: bearer(apiKey), body: { amount: 1 } });
    // Act
    const a = await invokeHttp(handler, event());
    const b = await invokeHttp(handler, event());
    // Assess
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(runs.map((o) => o.seed)).toEqual([null, null]);
    expect(a.body.id).not.toBe(b.body.id);
  });
});

describe('deeply nested bodies on an idempotent create', () => {
  const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it.each([
    ['an object nested 10,000 deep in a field', `{"email":"deep@example.com","extra":${deepObject(10_000)}}`],
    ['an array nested 10,000 deep in a field', `{"email":"deep@example.com","extra":${deepArray(10_000)}}`],
    ['a top-level object nested 10,000 deep', deepObject(10_000)],
    ['a top-level array nested 10,000 deep', deepArray(10_000)],
  ])('answers %s with 400 parameter_invalid, never 500', async (_, body) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const event = apiEvent({
      method: 'POST',
      path: '/api/customers',
      headers: { ...bearer(apiKey), 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
      body,
    });
    // Act
    const res = await invokeHttp(createCustomer, event);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid' });
    expect(res.body.error.message).toMatch(/^Invalid request body/);
  });

  it('accepts an unknown field nested a few levels deep, and replays it', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const body = `{"email":"nested@example.com","extra":${deepObject(20)}}`;
    const send = () =>
      invokeHttp(
        createCustomer,
        apiEvent({
          method: 'POST',
          path: '/api/customers',
          headers: { ...bearer(apiKey), 'Idempotency-Key': key, 'Content-Type': 'application/json' },
          body,
        }),
      );
    // Act
    const first = await send();
    const replay = await send();
    // Assess
    expect(first.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});

describe('whose requests a key stands for', () => {
  const customers = (credential: string, key: string, body: unknown) =>
    invokeHttp(
      createCustomer,
      apiEvent({ method: 'POST', path: '/api/customers', headers: { ...bearer(credential), 'Idempotency-Key': key }, body }),
    );

  it("keeps a publishable key's keys apart from the secret key's: a browser neither blocks the server's key nor learns it was used", async () => {
    // Prepare: a shopper's browser (anyone with the page's publishable key) takes `order-1043` first; the server used `order-1042`
    const { apiKey } = await newMerchant();
    const publishable = await publishableKeyOf(apiKey);
    const browser = await paymentMethods.create(publishable, cardBody(freshCard()), { 'Idempotency-Key': 'order-1043' });
    const serverEarlier = await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': 'order-1042' });

    // Act
    const server = await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': 'order-1043' });
    const probe = await paymentMethods.create(publishable, cardBody(freshCard()), { 'Idempotency-Key': 'order-1042' });
    const browserAgain = await paymentMethods.create(publishable, cardBody(freshCard()), { 'Idempotency-Key': 'order-1043' });

    // Assess: the server's create runs; the probe is a new request like any other; the browser's key is still its own
    expect([browser.status, serverEarlier.status]).toEqual([200, 200]);
    expect(server.status, server.rawBody).toBe(200);
    expect(server.body).toMatchObject({ object: 'payment', status: 'succeeded' });
    expect(server.headers['idempotent-replayed']).toBeUndefined();
    expect(probe.status, probe.rawBody).toBe(200);
    expect(probe.headers['idempotent-replayed']).toBeUndefined();
    expect(probe.body.id).not.toBe(browser.body.id);
    expect(browserAgain.status).toBe(400);
    expect(browserAgain.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it("keeps a sign-in session's keys apart from the secret key's", async () => {
    // Prepare: the dashboard creates a customer under a key
    const { apiKey, merchantId } = await newMerchant();
    const body = { email: `apart-${randomUUID()}@example.com` };
    const dashboard = await customers(await sessionOf(merchantId), 'signup-1', body);

    // Act: the server sends the same request under the same key
    const server = await customers(apiKey, 'signup-1', body);

    // Assess: run as the server's own request, not the dashboard's answer replayed
    expect([dashboard.status, server.status]).toEqual([200, 200]);
    expect(server.headers['idempotent-replayed']).toBeUndefined();
    expect(server.body.id).not.toBe(dashboard.body.id);
  });

  it('answers the same key on another method or path 400 idempotency_key_reused, even with an identical body', async () => {
    // Prepare: a body both endpoints accept (a customer create ignores fields it does not know)
    const { apiKey } = await newMerchant();
    const body = { email: `same-${randomUUID()}@example.com`, amount: 1000, currency: 'usd', payment_method: exampleId('paymentMethod') };
    const first = await customers(apiKey, 'shared-key', body);

    // Act
    const elsewhere = await payments.create(apiKey, body, { 'Idempotency-Key': 'shared-key' });
    const again = await customers(apiKey, 'shared-key', body);

    // Assess: refused before the payment is looked at; the key still answers its first request
    expect(first.status).toBe(200);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('leaves out every cvc, at any depth: a replay that differs only in its CVCs is the same request, any other field counts', async () => {
    // Prepare: a card saved, and a customer with a `cvc` nested in a field the endpoint does not know
    const { apiKey } = await newMerchant();
    const number = freshCard();
    const card = (cvc: string, pan = number) => ({ type: 'card', card: { number: pan, exp_month: 12, exp_year: 2034, cvc } });
    const email = `cvc-${randomUUID()}@example.com`;
    const customer = (cvc: string) => ({ email, extra: { deep: [{ cvc }] } });
    const saved = await paymentMethods.create(apiKey, card('4821'), { 'Idempotency-Key': 'save-1' });
    const created = await customers(apiKey, 'customer-1', customer('4821'));

    // Act
    const savedAgain = await paymentMethods.create(apiKey, card('935'), { 'Idempotency-Key': 'save-1' });
    const createdAgain = await customers(apiKey, 'customer-1', customer('935'));
    const otherCard = await paymentMethods.create(apiKey, card('4821', freshCard()), { 'Idempotency-Key': 'save-1' });

    // Assess
    expect([saved.status, created.status]).toEqual([200, 200]);
    for (const [replay, first] of [
      [savedAgain, saved],
      [createdAgain, created],
    ] as const) {
      expect(replay.status, replay.rawBody).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
    }
    expect(otherCard.status).toBe(400);
    expect(otherCard.body.error.code).toBe('idempotency_key_reused');
  });
});
