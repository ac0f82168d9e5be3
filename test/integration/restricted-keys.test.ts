import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as listKeys } from '../../functions/api-keys/list.ts';
import { handler as rollKey } from '../../functions/api-keys/roll.ts';
import { handler as listCustomers } from '../../functions/customers/list.ts';
import { handler as createPayment } from '../../functions/payments/create.ts';
import { handler as listPayments } from '../../functions/payments/list.ts';
import { handler as refundPayment } from '../../functions/payments/refund.ts';
import { rollApiKey } from '../../shared/domain/api-keys.ts';
import { clock } from '../../shared/model/clock.ts';
import { db } from '../../shared/store/client.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';

const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
});

const create = (credential: string, body: unknown) =>
  invokeHttp(createKey, apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(credential), body }));
const roll = (credential: string, id: string, body: unknown) =>
  invokeHttp(rollKey, apiEvent({ method: 'POST', path: `/api/api-keys/${id}/roll`, headers: bearer(credential), body }));
const listWith = (credential: string, sourceIp?: string) =>
  invokeHttp(listCustomers, apiEvent({ method: 'GET', path: '/api/customers', headers: bearer(credential), sourceIp }));
const paymentBody = {
  amount: 1000,
  currency: 'USD',
  payment_method: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
};

/** A key made through the API by the merchant's secret key. */
async function keyOf(apiKey: string, body: Record<string, unknown>) {
  const res = await create(apiKey, { name: 'Server', mode: 'test', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; key: string };
}

describe('restricted keys', () => {
  it('reads what it is granted and is refused writing it, naming the permission it lacks', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const reader = await keyOf(apiKey, { type: 'restricted', permissions: { payments: 'read' } });
    // Act
    const listed = await invokeHttp(listPayments, apiEvent({ path: '/api/payments/list', headers: bearer(reader.key) }));
    const created = await invokeHttp(
      createPayment,
      apiEvent({ method: 'POST', path: '/api/payments/create', headers: bearer(reader.key), body: paymentBody }),
    );
    const customers = await listWith(reader.key);
    // Assess
    expect(reader.key).toMatch(/^rk_test_[0-9A-Za-z]{43}$/);
    expect(listed.status).toBe(200);
    expect(created.status).toBe(403);
    expect(created.body.error).toMatchObject({
      type: 'permission_error',
      code: 'permission_denied',
      message: 'Permission denied: this key lacks payments:write',
    });
    expect(customers.status).toBe(403);
    expect(customers.body.error.message).toBe('Permission denied: this key lacks customers:read');
  });

  it('lists with its type, permissions, expiry and addresses, never the key', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const made = await keyOf(apiKey, {
      type: 'restricted',
      permissions: { payments: 'write' },
      expires_at: expiresAt,
      allowed_ips: ['203.0.113.0/24'],
    });
    // Act
    const listed = await invokeHttp(listKeys, apiEvent({ path: '/api/api-keys', headers: bearer(apiKey) }));
    // Assess
    const entry = listed.body.data.find((k: { id: string }) => k.id === made.id);
    expect(entry).toMatchObject({
      type: 'restricted',
      prefix: 'rk_test_',
      last4: made.key.slice(-4),
      permissions: { payments: 'write' },
      expires_at: expiresAt,
      allowed_ips: ['203.0.113.0/24'],
      status: 'active',
    });
    expect(entry.key).toBeUndefined();
    expect(JSON.stringify(listed.body)).not.toContain(made.key);
    expect(listed.body.data.find((k: { prefix: string }) => k.prefix === 'sk_test_')).toMatchObject({
      permissions: null,
      expires_at: null,
      allowed_ips: null,
    });
  });

  it.each([
    [{ team: 'read' }, 'permissions'],
    [{ audit_log: 'read' }, 'permissions'],
    [{ api_keys: 'write' }, 'permissions'],
    [{ payments: 'admin' }, 'permissions'],
    [{ refunds: 'write' }, 'permissions'],
    [{}, 'permissions'],
  ])('cannot be granted %j (400 naming %s)', async (permissions, param) => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, { name: 'Server', type: 'restricted', permissions });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: expect.stringContaining(param) });
  });

  it('cannot create a key, so cannot grant itself more, nor roll any key (into a secret key or else)', async () => {
    // Prepare
    const { apiKey, apiKeyId } = await newMerchant();
    const rk = await keyOf(apiKey, { type: 'restricted', permissions: { payments: 'write' } });
    // Act
    const wider = await create(rk.key, { name: 'More', type: 'restricted', permissions: { payments: 'write', connectors: 'write' } });
    const secret = await create(rk.key, { name: 'Secret' });
    const rollSecret = await roll(rk.key, apiKeyId, { expires_in_hours: 0 });
    const rollItself = await roll(rk.key, rk.id, { expires_in_hours: 0 });
    // Assess
    for (const res of [wider, secret, rollSecret, rollItself]) {
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe('Permission denied: this key lacks api_keys:write');
    }
    expect((await listWith(apiKey)).status).toBe(200);
  });

  it('rolls into a restricted key with the same permissions and addresses, never a secret key', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const rk = await keyOf(apiKey, { type: 'restricted', permissions: { customers: 'read' }, allowed_ips: ['203.0.113.0/24'] });
    // Act
    const rolled = await roll(apiKey, rk.id, { expires_in_hours: 0 });
    // Assess
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({
      type: 'restricted',
      prefix: 'rk_test_',
      permissions: { customers: 'read' },
      allowed_ips: ['203.0.113.0/24'],
    });
    expect(rolled.body.key).toMatch(/^rk_test_/);
    expect(rolled.body.id).not.toBe(rk.id);
    expect((await listWith(rolled.body.key, '203.0.113.7')).status).toBe(200);
    expect((await listWith(rolled.body.key, '127.0.0.1')).body.error.code).toBe('ip_not_allowed');
  });
});

describe('the check costs no read', () => {
  /** The DynamoDB reads `act` makes, by command and the partition key's prefix (`GetItem APIKEY`). */
  async function readsOf(act: () => Promise<unknown>): Promise<string[]> {
    const reads: string[] = [];
    const name = `count-reads-${randomUUID()}`;
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName).replace(/Command$/, '');
        const pk = JSON.stringify(args.input).match(/"pk":"([A-Z]+)#/)?.[1];
        if (['GetItem', 'Query', 'BatchGetItem'].includes(command)) reads.push(`${command} ${pk ?? '?'}`);
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await act();
    } finally {
      db.middlewareStack.remove(name);
    }
    return reads;
  }

  it("a restricted, address-bound key's request reads what a secret key's does: the key's one item", async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const rk = await keyOf(apiKey, { type: 'restricted', permissions: { customers: 'read' }, allowed_ips: ['127.0.0.0/8'] });
    // Act
    const secret = await readsOf(() => listWith(apiKey));
    const restricted = await readsOf(() => listWith(rk.key));
    // Assess
    expect(restricted).toEqual(secret);
    expect(secret.filter((read) => read.endsWith('APIKEY'))).toEqual(['GetItem APIKEY']);
  });
});

describe('keys bound to addresses', () => {
  it('are refused from elsewhere (403 ip_not_allowed) and work from their range', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const bound = await keyOf(apiKey, { allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] });
    // Act
    const local = await listWith(bound.key, '127.0.0.1');
    const inRange = await listWith(bound.key, '203.0.113.7');
    const v6 = await listWith(bound.key, '2001:db8::42');
    // Assess
    expect(local.status).toBe(403);
    expect(local.body.error).toMatchObject({ type: 'permission_error', code: 'ip_not_allowed' });
    expect(inRange.status).toBe(200);
    expect(v6.status).toBe(200);
  });

  it.each([['203.0.113.0/33'], ['not-an-ip'], ['2001:db8::/129'], ['10.0.0.1/8/1']])('refuses the range %s (400)', async (cidr) => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, { name: 'Server', allowed_ips: [cidr] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: expect.stringContaining('allowed_ips') });
  });

  it('are not publishable keys, which shoppers use from anywhere (400)', async () => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, { name: 'Checkout', type: 'publishable', allowed_ips: ['203.0.113.0/24'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'allowed_ips' });
  });
});

describe('expiring and rolled keys', () => {
  it('an expired key answers 401 saying when it expired', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const expiring = await keyOf(apiKey, { expires_at: expiresAt });
    const before = await listWith(expiring.key);
    // Act
    clock.now = () => realNow() + 61_000;
    const after = await listWith(expiring.key);
    // Assess
    expect(before.status).toBe(200);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toBe(`Invalid API key: this key expired on ${expiresAt}`);
  });

  it('a publishable key may expire too', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const pk = await keyOf(apiKey, { type: 'publishable', expires_at: expiresAt });
    // Act
    clock.now = () => realNow() + 61_000;
    const after = await listWith(pk.key);
    // Assess
    expect(pk.key).toMatch(/^pk_test_/);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toBe(`Invalid API key: this key expired on ${expiresAt}`);
  });

  it('refuses an expiry in the past (400)', async () => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, { name: 'Server', expires_at: '2020-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'expires_at' });
  });

  it('rolled with an hour of overlap, the old key works beside its successor and stops after the hour', async () => {
    // Prepare
    const { merchantId, apiKey, apiKeyId } = await newMerchant();
    // Act
    const rolled = await roll(await sessionOf(merchantId), apiKeyId, { expires_in_hours: 1 });
    const oldDuring = await listWith(apiKey);
    const newDuring = await listWith(rolled.body.key);
    clock.now = () => realNow() + 3_600_000 + 1_000;
    const oldAfter = await listWith(apiKey);
    const newAfter = await listWith(rolled.body.key);
    // Assess
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({ type: 'secret', prefix: 'sk_test_', status: 'active', expires_at: null });
    expect(rolled.body.key).toMatch(/^sk_test_/);
    expect([oldDuring.status, newDuring.status]).toEqual([200, 200]);
    expect(oldAfter.status).toBe(401);
    expect(oldAfter.body.error.message).toMatch(/^Invalid API key: this key expired on /);
    expect(newAfter.status).toBe(200);
    const listed = await invokeHttp(listKeys, apiEvent({ path: '/api/api-keys', headers: bearer(rolled.body.key) }));
    expect(listed.body.data.find((k: { id: string }) => k.id === apiKeyId)).toMatchObject({ status: 'rolled', expires_at: expect.any(String) });
  });

  it('rolled with 0 hours, the old key stops at once; a rolled key is not rolled again', async () => {
    // Prepare
    const { apiKey, apiKeyId } = await newMerchant();
    // Act
    const rolled = await roll(apiKey, apiKeyId, { expires_in_hours: 0 });
    const old = await listWith(apiKey);
    const again = await roll(rolled.body.key, apiKeyId, { expires_in_hours: 0 });
    // Assess
    expect(rolled.status).toBe(200);
    expect(old.status).toBe(401);
    expect((await listWith(rolled.body.key)).status).toBe(200);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('a retried roll (the same Idempotency-Key) answers the same successor, without the key', async () => {
    // Prepare
    const { apiKey, apiKeyId } = await newMerchant();
    const headers = { ...bearer(apiKey), 'Idempotency-Key': 'roll-1' };
    const event = () => apiEvent({ method: 'POST', path: `/api/api-keys/${apiKeyId}/roll`, headers, body: { expires_in_hours: 1 } });
    // Act
    const first = await invokeHttp(rollKey, event());
    const replay = await invokeHttp(rollKey, event());
    // Assess
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.key).toBeUndefined();
  });

  it('a roll run again after its commit (its answer lost) answers the successor it made, without the key', async () => {
    // Prepare
    const { merchantId, apiKeyId } = await newMerchant();
    const actor = { id: merchantId, credential: 'session' as const, livemode: false };
    // an Idempotency-Key's origin: the same ids on every run
    const origin = { at: Date.now(), seed: `roll-${randomUUID()}` };
    // Act
    const first = await rollApiKey(actor, apiKeyId, { expires_in_hours: 1 }, origin);
    const again = await rollApiKey(actor, apiKeyId, { expires_in_hours: 1 }, origin);
    // Assess
    expect(again).toEqual({ ...first, key: undefined });
  });

  it.each([[-1], [169], [1.5]])('refuses an overlap of %s hours (400)', async (hours) => {
    const { apiKey, apiKeyId } = await newMerchant();
    const res = await roll(apiKey, apiKeyId, { expires_in_hours: hours });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('expires_in_hours');
    expect((await listWith(apiKey)).status).toBe(200);
  });
});

describe('roles', () => {
  it('an analyst reads payments and is refused a refund, naming the role', async () => {
    // Prepare
    const { merchantId, capturedPaymentId } = await newMerchant({ payments: true });
    const analyst = await sessionOf(merchantId, 'analyst');
    // Act
    const listed = await invokeHttp(listPayments, apiEvent({ path: '/api/payments/list', headers: bearer(analyst) }));
    const refund = await invokeHttp(
      refundPayment,
      apiEvent({ method: 'POST', path: `/api/payments/${capturedPaymentId}/refund`, headers: bearer(analyst), body: {} }),
    );
    // Assess
    expect(listed.status).toBe(200);
    expect(refund.status).toBe(403);
    expect(refund.body.error).toMatchObject({
      type: 'permission_error',
      code: 'permission_denied',
      message: 'Permission denied: the analyst role cannot write payments',
    });
  });

  it('support refunds a payment but creates none', async () => {
    // Prepare
    const { merchantId, capturedPaymentId } = await newMerchant({ payments: true });
    const support = await sessionOf(merchantId, 'support');
    // Act
    const refund = await invokeHttp(
      refundPayment,
      apiEvent({ method: 'POST', path: `/api/payments/${capturedPaymentId}/refund`, headers: bearer(support), body: {} }),
    );
    const created = await invokeHttp(
      createPayment,
      apiEvent({ method: 'POST', path: '/api/payments/create', headers: bearer(support), body: paymentBody }),
    );
    // Assess
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    expect(created.status).toBe(403);
    expect(created.body.error.code).toBe('permission_denied');
  });
});
