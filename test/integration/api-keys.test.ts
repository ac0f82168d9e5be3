import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as listKeys } from '../../functions/api-keys/list.ts';
import { handler as revokeKey } from '../../functions/api-keys/revoke.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { clock } from '../../shared/model/clock.ts';
import { sha256 } from '../../shared/model/credentials.ts';
import { newId } from '../../shared/model/ids.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { API_KEY_HASH_COPIES, apiKeyKeys, idempotencyKeys } from '../../shared/store/keys.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf, testOwner } from '../support/merchant.ts';

const create = (key: string, body: unknown) => invokeHttp(createKey, apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(key), body }));
const list = (key: string, query?: Record<string, string>) =>
  invokeHttp(listKeys, apiEvent({ method: 'GET', path: '/api/api-keys', headers: bearer(key), query }));
const revoke = (key: string, id: string) =>
  invokeHttp(
    revokeKey,
    apiEvent({
      method: 'PUT',
      path: `/api/api-keys/${id}/revoke`,
      resource: '/api/api-keys/{id}/revoke',
      pathParameters: { id },
      headers: bearer(key),
    }),
  );
const callWith = (key: string) => invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers: bearer(key) }));

describe('API keys', () => {
  it('creates a live key shown once, with its prefix and mode (signed in)', async () => {
    const { merchantId } = await newMerchant();
    const res = await create(await sessionOf(merchantId), { name: 'Checkout server', mode: 'live' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^key_[0-9a-z]{26}$/), prefix: 'sk_live_', mode: 'live', status: 'active' });
    expect(res.body.key).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(res.body.last4).toBe(res.body.key.slice(-4));
    expect((await callWith(res.body.key)).status).toBe(200);
  });

  it('stores the new key nowhere: an idempotent replay answers the same key record without the key', async () => {
    // Prepare + Act: a create, then the same request again under the same Idempotency-Key
    const { merchantId } = await newMerchant();
    const headers = { ...bearer(await sessionOf(merchantId)), 'Idempotency-Key': 'new-key-1' };
    const body = { name: 'Checkout server', mode: 'live' };
    const first = await invokeHttp(createKey, apiEvent({ method: 'POST', path: '/api/api-keys', headers, body }));
    const replay = await invokeHttp(createKey, apiEvent({ method: 'POST', path: '/api/api-keys', headers, body }));
    // Assess: the replay is the same record, marked replayed, without the key; the stored response does not hold it
    const { key, ...record } = first.body;
    expect(key).toMatch(/^sk_live_/);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(record);
    const stored = await db.send(
      new GetCommand({ TableName: TABLE, Key: idempotencyKeys.record(idempotencyKeys.scope(testOwner(merchantId), 'session'), 'new-key-1') }),
    );
    expect(stored.Item).toMatchObject({ status: 'completed', response_status: 200 });
    expect(JSON.stringify(stored.Item)).not.toContain(key);
  });

  it('lists keys newest first with prefix and last4, never the key or its hash', async () => {
    const { apiKey } = await newMerchant();
    const made = await create(apiKey, { name: 'Reporting', mode: 'test' });
    const res = await list(apiKey);
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toEqual({
      id: made.body.id,
      object: 'api_key',
      type: 'secret',
      name: 'Reporting',
      prefix: 'sk_test_',
      last4: made.body.last4,
      mode: 'test',
      status: 'active',
      permissions: null,
      expires_at: null,
      allowed_ips: null,
      created_at: made.body.created_at,
      last_used: null,
    });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(made.body.key);
    expect(text).not.toContain(apiKey);
    expect(text).not.toMatch(/hash/);
  });

  it('records last_used when a key is used, at most once a minute', async () => {
    const { apiKey, apiKeyId } = await newMerchant();
    await callWith(apiKey);
    const firstUse = (await list(apiKey)).body.data.find((k: { id: string }) => k.id === apiKeyId).last_used;
    await callWith(apiKey);
    const sameMinute = (await list(apiKey)).body.data.find((k: { id: string }) => k.id === apiKeyId).last_used;
    const realNow = clock.now;
    clock.now = () => realNow() + 61_000;
    try {
      await callWith(apiKey);
      const later = (await list(apiKey)).body.data.find((k: { id: string }) => k.id === apiKeyId).last_used;
      expect(firstUse).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(sameMinute).toBe(firstUse);
      expect(later > firstUse).toBe(true);
    } finally {
      clock.now = realNow;
    }
  });

  it('revokes a key: it answers 401 at once, and revoking again answers 200', async () => {
    const { apiKey } = await newMerchant();
    const other = await create(apiKey, { name: 'To revoke', mode: 'test' });
    const first = await revoke(apiKey, other.body.id);
    const afterRevoke = await callWith(other.body.key);
    const again = await revoke(apiKey, other.body.id);
    const listed = await list(apiKey);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: other.body.id, status: 'revoked' });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body.error).toMatchObject({ type: 'authentication_error', message: 'Invalid API key' });
    expect(again.status).toBe(200);
    expect(listed.body.data.find((k: { id: string }) => k.id === other.body.id).status).toBe('revoked');
  });

  it('keeps every copy of the hash item a request may read in step: the key, its last use, its revocation', async () => {
    // Prepare: a key, used once, then again a minute later
    const { apiKey, merchantId } = await newMerchant();
    const made = await create(apiKey, { name: 'Copied', mode: 'test' });
    const copies = () =>
      Promise.all(
        Array.from({ length: API_KEY_HASH_COPIES }, async (_, copy) => {
          const read = await db.send(new GetCommand({ TableName: TABLE, Key: apiKeyKeys.byHash(sha256(made.body.key), copy) }));
          return (
            read.Item && { merchant_id: read.Item.merchant_id, key_id: read.Item.key_id, status: read.Item.status, last_used: read.Item.last_used }
          );
        }),
      );
    const realNow = clock.now;
    await callWith(made.body.key);
    clock.now = () => realNow() + 61_000;
    try {
      await callWith(made.body.key);
    } finally {
      clock.now = realNow;
    }
    const used = await copies();
    const lastUsed = (await list(apiKey)).body.data.find((k: { id: string }) => k.id === made.body.id).last_used;
    // Act
    await revoke(apiKey, made.body.id);
    const calls = await Promise.all(Array.from({ length: 12 }, () => callWith(made.body.key)));
    // Assess: every copy holds the key and the last use the list shows, then says revoked; no call gets through
    expect(used).toEqual(Array(API_KEY_HASH_COPIES).fill({ merchant_id: merchantId, key_id: made.body.id, status: 'active', last_used: lastUsed }));
    expect((await copies()).map((c) => c?.status)).toEqual(Array(API_KEY_HASH_COPIES).fill('revoked'));
    expect(calls.map((c) => c.status)).toEqual(Array(12).fill(401));
  });

  it("answers 404 for an unknown key, a malformed id and another merchant's key", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    expect((await revoke(a.apiKey, newId('apiKey'))).status).toBe(404);
    expect((await revoke(a.apiKey, 'key_nope')).status).toBe(404);
    expect((await revoke(a.apiKey, newId('customer'))).status).toBe(404);
    const foreign = await revoke(a.apiKey, b.apiKeyId);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ type: 'invalid_request_error', message: `Resource not found: no API key ${b.apiKeyId}` });
    expect((await callWith(b.apiKey)).status).toBe(200);
  });

  it.each([
    ['no name', { mode: 'live' }, 'name'],
    ['an unknown mode', { name: 'x', mode: 'production' }, 'mode'],
    ['a name over 200 chars', { name: 'x'.repeat(201) }, 'name'],
  ])('answers 400 to a create with %s', async (_case, body, param) => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ message: expect.stringMatching(/^Invalid request body: ./), param });
  });

  it("defaults the mode to the test key's own", async () => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, { name: 'Default mode' });
    expect(res.body).toMatchObject({ mode: 'test', prefix: 'sk_test_' });
  });
});

describe('authentication', () => {
  const NO_HEADER = 'Invalid API key: no Authorization header; send Authorization: Bearer <API key or session token>';
  const NOT_BEARER = 'Invalid API key: the Authorization header must be Bearer <API key or session token>';
  it.each([
    ['no Authorization header', {}, NO_HEADER],
    ['a garbage key', bearer('sk_test_garbage'), 'Invalid API key'],
    ['a made-up live key', bearer(`sk_live_${'a'.repeat(43)}`), 'Invalid API key'],
    ['a made-up session', bearer(`sess_${'a'.repeat(43)}`), 'Invalid API key'],
    ['a Basic credential', { Authorization: 'Basic dXNlcjpwYXNz' }, NOT_BEARER],
    ['Bearer without a credential', { Authorization: 'Bearer ' }, NOT_BEARER],
  ])('answers 401 Invalid API key for %s', async (_case, headers, message) => {
    const res = await invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers }));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { type: 'authentication_error', code: 'invalid_api_key', message, request_id: res.headers['request-id'] },
    });
  });

  it('reads the header case-insensitively', async () => {
    const { apiKey } = await newMerchant();
    const res = await invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers: { authorization: `bearer ${apiKey}` } }));
    expect(res.status).toBe(200);
  });
});

describe('API keys of each mode (test and live apart)', () => {
  it('a test key manages test keys only: asking for a live key answers 400 naming mode', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await create(apiKey, { name: 'Escalation', mode: 'live' });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
    expect((await list(apiKey)).body.data.map((k: { mode: string }) => k.mode)).toEqual(['test']);
  });

  it('a signed-in session lists and revokes keys of both modes; each key sees only its own mode', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const session = await sessionOf(merchantId);
    const live = (await create(session, { name: 'Live checkout', mode: 'live' })).body;
    // Act
    const bySession = (await list(session)).body.data.map((k: { mode: string }) => k.mode);
    const byTestKey = (await list(apiKey)).body.data.map((k: { id: string }) => k.id);
    const byLiveKey = (await list(live.key)).body.data.map((k: { id: string }) => k.id);
    const testRevokesLive = await revoke(apiKey, live.id);
    const sessionRevokesLive = await revoke(session, live.id);
    // Assess
    expect(bySession.sort()).toEqual(['live', 'test']);
    expect(byTestKey).not.toContain(live.id);
    expect(byLiveKey).toEqual([live.id]);
    expect(testRevokesLive.status).toBe(404);
    expect(sessionRevokesLive.body.status).toBe('revoked');
  });

  it('a session acts in test mode unless the request says Livemode: true; a key cannot be told another mode', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const session = await sessionOf(merchantId);
    const createAs = (headers: Record<string, string>) =>
      invokeHttp(createKey, apiEvent({ method: 'POST', path: '/api/api-keys', headers: { ...bearer(session), ...headers }, body: { name: 'k' } }));
    // Act
    const plain = await createAs({});
    const live = await createAs({ Livemode: 'true' });
    const garbled = await createAs({ Livemode: 'yes' });
    const contradicted = await invokeHttp(
      listKeys,
      apiEvent({ method: 'GET', path: '/api/api-keys', headers: { ...bearer(apiKey), Livemode: 'true' } }),
    );
    // Assess: the mode a key defaults to is the credential's
    expect(plain.body.mode).toBe('test');
    expect(live.body.mode).toBe('live');
    expect(garbled.status).toBe(400);
    expect(garbled.body.error).toMatchObject({ code: 'parameter_invalid', param: 'Livemode' });
    expect(contradicted.status).toBe(400);
    expect(contradicted.body.error.param).toBe('Livemode');
  });
});
