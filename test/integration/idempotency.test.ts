import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../shared/domain/clock.ts';
import { ProvidersUnavailable } from '../../shared/domain/errors.ts';
import { idFor, type Origin } from '../../shared/domain/ids.ts';
import { http } from '../../shared/http/index.ts';
import { db, isConditionFailure, TABLE } from '../../shared/store/client.ts';
import { apiEvent, fakeContext, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';

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
  const handler = http({ auth: 'merchant', body: Body, idempotent: true }, async ({ body, origin }) => {
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
    expect(retryAfter).toBeLessThanOrEqual(16);
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
