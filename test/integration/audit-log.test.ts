import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as revokeKey } from '../../functions/api-keys/revoke.ts';
import { handler as exportLog } from '../../functions/audit-log/export.ts';
import { handler as listLog } from '../../functions/audit-log/list.ts';
import { handler as requestOtp } from '../../functions/auth/request-otp.ts';
import { handler as verifyOtp } from '../../functions/auth/verify-otp.ts';
import { handler as createConnector } from '../../functions/connectors/create.ts';
import { handler as updateCustomer } from '../../functions/customers/update.ts';
import { handler as updateSettings } from '../../functions/settings/update.ts';
import { handler as configureWebhook } from '../../functions/webhooks/configure.ts';
import { handler as rotateSecret } from '../../functions/webhooks/rotate-secret.ts';
import { handler as updateWebhook } from '../../functions/webhooks/update.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { config } from '../../shared/config.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { audited, type AuditRequest } from '../../shared/model/audit.ts';
import { newId } from '../../shared/model/ids.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { commit } from '../../shared/store/commit.ts';
import { auditKeys } from '../../shared/store/keys.ts';
import { apiEvent, invokeHttp, type Json } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { rules } from '../support/rules.ts';

let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());

type Headers = Record<string, string>;
const as = (credential: string, headers: Headers = {}) => ({ ...bearer(credential), ...headers });

const call = {
  log: (credential: string, query: Record<string, string> = {}, headers: Headers = {}) =>
    invokeHttp(listLog, apiEvent({ method: 'GET', path: '/api/audit_log', headers: as(credential, headers), query })),
  export: (credential: string, query: Record<string, string> = {}, headers: Headers = {}) =>
    invokeHttp(exportLog, apiEvent({ method: 'GET', path: '/api/audit_log/export', headers: as(credential, headers), query })),
  createKey: (credential: string, body: unknown) =>
    invokeHttp(createKey, apiEvent({ method: 'POST', path: '/api/api-keys', headers: as(credential), body })),
  revokeKey: (credential: string, id: string) =>
    invokeHttp(revokeKey, apiEvent({ method: 'PUT', path: `/api/api-keys/${id}/revoke`, headers: as(credential) })),
  configure: (credential: string, url = 'http://127.0.0.1:9/hooks') =>
    invokeHttp(
      configureWebhook,
      apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: as(credential), body: { url, events: ['*'] } }),
    ),
  updateWebhook: (credential: string, id: string, body: unknown) =>
    invokeHttp(updateWebhook, apiEvent({ method: 'PUT', path: `/api/webhooks/${id}`, headers: as(credential), body })),
  rotate: (credential: string, id: string) =>
    invokeHttp(rotateSecret, apiEvent({ method: 'POST', path: `/api/webhooks/${id}/rotate-secret`, headers: as(credential) })),
  settings: (credential: string, origins: string[]) =>
    invokeHttp(updateSettings, apiEvent({ method: 'PUT', path: '/api/settings', headers: as(credential), body: { checkout_origins: origins } })),
  connector: (credential: string) =>
    invokeHttp(
      createConnector,
      apiEvent({
        method: 'POST',
        path: '/api/connectors',
        headers: as(credential),
        body: { provider: 'stripe', credentials: fakes.credentials.stripe },
      }),
    ),
};

/** Every entry of the log a credential reads, newest first (one page of 100). */
const wholeLog = async (credential: string, headers: Headers = {}): Promise<Json[]> => {
  const res = await call.log(credential, { limit: '100' }, headers);
  expect(res.status).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body.data;
};

/** The entries as the table holds them (the owner's partition), to look for what no view would show. */
const storedEntries = async (merchantId: string, livemode = false) =>
  (
    await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': auditKeys.partition({ merchant_id: merchantId, livemode }) },
      }),
    )
  ).Items ?? [];

async function capturedPayment(apiKey: string): Promise<string> {
  const paid = await payments.create(apiKey, paymentBody());
  expect(paid.status).toBe(200);
  expect((await payments.capture(apiKey, paid.body.id)).status).toBe(200);
  return paid.body.id;
}

describe('what the audit log records', () => {
  it("writes one entry for a person's refund: their e-mail, address, browser and the response's Request-Id", async () => {
    // Prepare: a payment made and captured with the secret key (neither audited)
    const { apiKey, merchantId } = await newMerchant();
    const paymentId = await capturedPayment(apiKey);
    const session = await sessionOf(merchantId);
    // Act
    const refund = await invokeHttp(
      (await import('../../functions/payments/refund.ts')).handler,
      apiEvent({
        method: 'POST',
        path: `/api/payments/${paymentId}/refund`,
        headers: as(session, { 'User-Agent': 'support-desk/2.1' }),
        body: { amount: 700 },
        sourceIp: '203.0.113.7',
      }),
    );
    // Assess
    expect(refund.status).toBe(200);
    const log = await wholeLog(session);
    expect(log).toEqual([
      {
        id: expect.stringMatching(/^aud_[0-9a-z]{26}$/),
        object: 'audit_entry',
        action: 'payments.refund',
        actor: { type: 'user', id: expect.stringMatching(/^usr_/), email: expect.stringMatching(/^owner-.+@example\.test$/), role: 'owner' },
        object_id: paymentId,
        request_id: refund.headers['request-id'],
        ip: '203.0.113.7',
        user_agent: 'support-desk/2.1',
        livemode: false,
        created_at: expect.any(String),
        changes: { status: { from: 'captured', to: 'refunded' } },
      },
    ]);
  });

  it("writes none for a secret key's payments, one for each of its writes to connectors, routing, webhooks, settings and API keys", async () => {
    // Prepare
    const { apiKey, apiKeyId, merchantId } = await newMerchant();
    const paymentId = await capturedPayment(apiKey);
    expect((await payments.refund(apiKey, paymentId, { amount: 100 })).status).toBe(200);
    // Act
    const connector = await call.connector(apiKey);
    const rule = await rules.create(apiKey, { name: 'Stripe first', provider: 'stripe', strategy: 'smart', conditions: [] });
    const webhook = await call.configure(apiKey);
    const settings = await call.settings(apiKey, ['https://shop.example']);
    const key = await call.createKey(apiKey, { name: 'CI' });
    const revoked = await call.revokeKey(apiKey, key.body.id);
    // Assess
    for (const res of [connector, rule, webhook, settings, key, revoked]) expect(res.status).toBe(200);
    const log = await wholeLog(await sessionOf(merchantId));
    expect(log.map((entry) => [entry.action, entry.object_id, entry.request_id])).toEqual([
      ['api-keys.revoke', key.body.id, revoked.headers['request-id']],
      ['api-keys.create', key.body.id, key.headers['request-id']],
      ['settings.update', null, settings.headers['request-id']],
      ['webhooks.configure', webhook.body.id, webhook.headers['request-id']],
      ['routing.rules.create', rule.body.id, rule.headers['request-id']],
      ['connectors.create', connector.body.id, connector.headers['request-id']],
    ]);
    for (const entry of log) expect(entry.actor).toEqual({ type: 'api_key', id: apiKeyId, key_last4: apiKey.slice(-4) });
    expect(log[0].changes).toEqual({ status: { to: 'revoked' } });
    expect(log[2].changes.checkout_origins).toEqual({ to: ['https://shop.example'] });
  });

  it("records a person's change of a customer with what changed, and not the same change by a secret key", async () => {
    // Prepare
    const { apiKey, merchantId, customerId } = await newMerchant();
    const session = await sessionOf(merchantId);
    const update = (credential: string, body: unknown) =>
      invokeHttp(updateCustomer, apiEvent({ method: 'PUT', path: `/api/customers/${customerId}`, headers: as(credential), body }));
    // Act
    const byKey = await update(apiKey, { name: 'Jane Roe' });
    const byPerson = await update(session, { phone: '+14155550100', metadata: { tier: 'gold' } });
    // Assess
    expect([byKey.status, byPerson.status]).toEqual([200, 200]);
    const log = await wholeLog(session);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      action: 'customers.update',
      object_id: customerId,
      request_id: byPerson.headers['request-id'],
      changes: { phone: { to: '+14155550100' }, metadata: { to: { tier: 'gold' } } },
    });
  });

  it('shows a rotated webhook secret as "[changed]" and keeps no key, credential or secret in any entry', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const session = await sessionOf(merchantId);
    // Act: a new key, a connector with credentials, an endpoint and its rotated secret; a person changes one more
    const key = await call.createKey(apiKey, { name: 'Backend' });
    const connector = await call.connector(apiKey);
    const webhook = await call.configure(apiKey);
    const rotated = await call.rotate(session, webhook.body.id);
    // Assess
    expect([key.status, connector.status, webhook.status, rotated.status]).toEqual([200, 200, 200, 200]);
    const [rotation] = await wholeLog(session);
    expect(rotation.action).toBe('webhooks.rotate-secret');
    expect(rotation.changes.secret).toEqual({ from: '[changed]', to: '[changed]' });
    expect(rotation.changes.previous_secret).toEqual({ to: '[changed]' });
    const stored = JSON.stringify(await storedEntries(merchantId));
    const secrets = [apiKey, key.body.key, webhook.body.secret, rotated.body.secret, ...Object.values(fakes.credentials.stripe)];
    expect(secrets.every((secret) => typeof secret === 'string' && secret.length > 8)).toBe(true);
    for (const secret of secrets) expect(stored).not.toContain(secret);
    expect(stored).not.toMatch(/sealed"\s*:\s*"(?!\[changed\])/);
  });

  it('writes nothing again for an idempotent replay', async () => {
    // Prepare
    const { merchantId } = await newMerchant();
    const session = await sessionOf(merchantId);
    const configure = () =>
      invokeHttp(
        configureWebhook,
        apiEvent({
          method: 'POST',
          path: '/api/webhooks/configure',
          headers: as(session, { 'Idempotency-Key': 'audit-replay-1' }),
          body: { url: 'http://127.0.0.1:9/hooks', events: ['*'] },
        }),
      );
    // Act
    const first = await configure();
    const replay = await configure();
    // Assess
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await wholeLog(session)).map((entry) => [entry.action, entry.request_id])).toEqual([['webhooks.configure', first.headers['request-id']]]);
  });

  it('is kept 400 days by the table (its TTL), and only by a change that was written', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const session = await sessionOf(merchantId);
    const paid = await payments.create(apiKey, paymentBody());
    // Act: voided by a person; then a capture of the voided payment is refused
    const voided = await payments.void(session, paid.body.id);
    const refused = await payments.capture(session, paid.body.id);
    // Assess
    expect(voided.status).toBe(200);
    expect(refused.status).toBe(400);
    const log = await wholeLog(session);
    expect(log.map((entry) => entry.action)).toEqual(['payments.void']);
    const [item] = await storedEntries(merchantId);
    const days = (Number(item!.expires_at) * 1000 - Date.parse(String(item!.created_at))) / 86_400_000;
    expect(days).toBeGreaterThan(399.99);
    expect(days).toBeLessThanOrEqual(400);
  });

  it("writes the entry in its change's transaction: a refused change leaves none, the next change of the request carries it", async () => {
    // Prepare: a request's scope, as the HTTP chain opens it for an audited request
    const { merchantId } = await newMerchant();
    const owner = { merchant_id: merchantId, livemode: false };
    const request: AuditRequest = {
      owner,
      action: 'webhooks.update',
      actor: { type: 'api_key', id: 'key_x' },
      request_id: randomUUID(),
      ip: '198.51.100.1',
      user_agent: null,
    };
    const missing = { entity: 'webhook', id: newId('webhook'), owner } as const;
    // Act: a change refused by its condition (no such endpoint), then one that is written
    const results = await audited(request, async () => [
      await commit({
        writes: [
          { update: missing, inStates: ['active'], set: { url: 'https://x.example' } },
          { update: missing, set: { events: ['*'] } },
        ],
      }),
      await commit({ writes: [{ create: { entity: 'merchant', id: newId('merchant') }, item: { email: 'x@example.test' } }] }),
      await commit({ writes: [{ create: { entity: 'merchant', id: newId('merchant') }, item: { email: 'y@example.test' } }] }),
    ]);
    // Assess
    expect(results).toEqual(['refused', 'committed', 'committed']);
    const stored = await storedEntries(merchantId);
    expect(stored.map((item) => item.request_id)).toEqual([request.request_id]);
  });

  it('refuses, unsent, a change too large to carry its entry (a transaction holds 100 items)', async () => {
    // Prepare
    const { merchantId } = await newMerchant();
    const request: AuditRequest = {
      owner: { merchant_id: merchantId, livemode: false },
      action: 'routing.rules.create',
      actor: { type: 'api_key', id: 'key_x' },
      request_id: randomUUID(),
      ip: '198.51.100.1',
      user_agent: null,
    };
    const ids = Array.from({ length: 100 }, () => newId('merchant'));
    // Act
    const sent = audited(request, () => commit({ writes: ids.map((id) => ({ create: { entity: 'merchant', id } as const, item: { email: id } })) }));
    // Assess
    await expect(sent).rejects.toThrow('A change of 100 items leaves no room in its transaction for its audit entry');
    expect(await storedEntries(merchantId)).toEqual([]);
  });
});

describe('reading the audit log', () => {
  /** A log of six entries: a person's and a key's writes to two endpoints, the settings and a rule. */
  async function busyLog() {
    const merchant = await newMerchant();
    const session = await sessionOf(merchant.merchantId);
    const first = (await call.configure(session, 'http://127.0.0.1:9/a')).body.id;
    const second = (await call.configure(merchant.apiKey, 'http://127.0.0.1:9/b')).body.id;
    expect((await call.updateWebhook(session, first, { url: 'http://127.0.0.1:9/a2' })).status).toBe(200);
    expect((await call.settings(session, ['https://shop.example'])).status).toBe(200);
    expect((await rules.create(merchant.apiKey, { name: 'r', provider: 'stripe', strategy: 'smart', conditions: [] })).status).toBe(200);
    expect((await call.updateWebhook(merchant.apiKey, second, { events: ['payment.succeeded'] })).status).toBe(200);
    const all = await wholeLog(session);
    expect(all).toHaveLength(6);
    return { ...merchant, session, first, second, all };
  }

  it('filters by actor, action and object, each alone and together, newest first', async () => {
    // Prepare
    const { session, apiKeyId, merchantId, first, second, all } = await busyLog();
    const ids = (res: Json) => res.body.data.map((entry: Json) => entry.id);
    const expected = (keep: (entry: Json) => boolean) => all.filter(keep).map((entry) => entry.id);
    // Act
    const byKey = await call.log(session, { actor_id: apiKeyId });
    const byPerson = await call.log(session, { actor_id: merchantId });
    const byAction = await call.log(session, { action: 'webhooks.update' });
    const byObject = await call.log(session, { object_id: first });
    const together = await call.log(session, { object_id: second, action: 'webhooks.update', actor_id: apiKeyId });
    const none = await call.log(session, { action: 'payments.refund' });
    // Assess
    expect(ids(byKey)).toEqual(expected((entry) => entry.actor.id === apiKeyId));
    expect(ids(byKey)).toHaveLength(3);
    expect(ids(byPerson)).toEqual(expected((entry) => entry.actor.id === merchantId));
    expect(ids(byAction)).toEqual(expected((entry) => entry.action === 'webhooks.update'));
    expect(ids(byAction)).toHaveLength(2);
    expect(ids(byObject)).toEqual(expected((entry) => entry.object_id === first));
    expect(ids(byObject)).toHaveLength(2);
    expect(ids(together)).toEqual(expected((entry) => entry.object_id === second && entry.action === 'webhooks.update'));
    expect(ids(together)).toHaveLength(1);
    expect(none.body).toEqual({ object: 'list', data: [], has_more: false });
  });

  it('takes created_after as inclusive and created_before as exclusive, alone, together and with a filter', async () => {
    // Prepare
    const { session, all } = await busyLog();
    const at = all[2].created_at as string;
    const ids = (res: Json) => res.body.data.map((entry: Json) => entry.id);
    // Act
    const after = await call.log(session, { created_after: at });
    const before = await call.log(session, { created_before: at });
    const exactly = await call.log(session, { created_after: at, created_before: new Date(Date.parse(at) + 1).toISOString() });
    const empty = await call.log(session, { created_after: at, created_before: at });
    const filtered = await call.log(session, { action: all[2].action, created_before: at });
    // Assess
    expect(ids(after)).toEqual(all.filter((entry) => entry.created_at >= at).map((entry) => entry.id));
    expect(ids(after)).toContain(all[2].id);
    expect(ids(before)).toEqual(all.filter((entry) => entry.created_at < at).map((entry) => entry.id));
    expect(ids(before)).not.toContain(all[2].id);
    expect(ids(exactly)).toEqual(all.filter((entry) => entry.created_at === at).map((entry) => entry.id));
    expect(empty.body.data).toEqual([]);
    expect(ids(filtered)).toEqual(all.filter((entry) => entry.created_at < at && entry.action === all[2].action).map((entry) => entry.id));
  });

  it('pages newest first with limit, starting_after and ending_before, and answers 400 to a bad filter', async () => {
    // Prepare
    const { session, all } = await busyLog();
    // Act
    const one = await call.log(session, { limit: '4' });
    const two = await call.log(session, { limit: '4', starting_after: one.body.data.at(-1).id });
    const back = await call.log(session, { limit: '2', ending_before: two.body.data[0].id });
    const badTime = await call.log(session, { created_after: 'yesterday' });
    const unknown = await call.log(session, { actor: 'x' });
    const reversed = await call.log(session, { created_after: all[0].created_at, created_before: all[5].created_at });
    // Assess
    expect(one.body.has_more).toBe(true);
    expect([...one.body.data, ...two.body.data].map((entry: Json) => entry.id)).toEqual(all.map((entry) => entry.id));
    expect(two.body.has_more).toBe(false);
    expect(back.body.data.map((entry: Json) => entry.id)).toEqual([all[2].id, all[3].id]);
    expect(badTime.status).toBe(400);
    expect(badTime.body.error).toMatchObject({ code: 'parameter_invalid', param: 'created_after' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'actor' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error).toMatchObject({ code: 'parameter_invalid', param: 'created_before' });
  });

  it('exports the log as JSON Lines, each line an entry as the list shows it, within the range asked', async () => {
    // Prepare
    const { session, all } = await busyLog();
    // Act
    const everything = await call.export(session);
    const part = await call.export(session, { created_after: all[4].created_at, created_before: all[1].created_at });
    // Assess
    expect(everything.status).toBe(200);
    expect(everything.headers['content-type']).toBe('application/x-ndjson');
    const lines = (raw: string) => raw.split('\n');
    expect(lines(everything.rawBody).at(-1)).toBe('');
    expect(
      lines(everything.rawBody)
        .slice(0, -1)
        .map((line) => JSON.parse(line)),
    ).toEqual(all);
    const inRange = all.filter((entry) => entry.created_at >= all[4].created_at && entry.created_at < all[1].created_at);
    expect(
      lines(part.rawBody)
        .slice(0, -1)
        .map((line) => JSON.parse(line)),
    ).toEqual(inRange);
  });
});

describe('whose log it is', () => {
  it("never shows one merchant's entries to another, by key or session, with any filter", async () => {
    // Prepare: merchant A's log; merchant B plays the attacker with A's ids
    const victim = await newMerchant();
    const victimSession = await sessionOf(victim.merchantId);
    const webhook = (await call.configure(victimSession)).body.id;
    await call.settings(victim.apiKey, ['https://victim.example']);
    const [entry] = await wholeLog(victimSession);
    const attacker = await newMerchant();
    const attackerSession = await sessionOf(attacker.merchantId);
    const reads = (credential: string) =>
      Promise.all([
        call.log(credential),
        call.log(credential, { object_id: webhook }),
        call.log(credential, { actor_id: entry.actor.id }),
        call.log(credential, { actor_id: victim.apiKeyId }),
        call.log(credential, { action: 'webhooks.configure' }),
        call.log(credential, { starting_after: entry.id }),
        call.export(credential),
      ]);
    // Act
    const [bySession, byKey] = [await reads(attackerSession), await reads(attacker.apiKey)];
    // Assess: the attacker's owner reads only its own log; its secret key may not read a log at all
    for (const read of bySession) {
      expect(read.status).toBe(200);
      expect(read.rawBody).not.toContain(victim.merchantId);
      expect(read.rawBody).not.toContain(webhook);
    }
    for (const read of byKey) expect(read.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
  });

  it('keeps test and live apart: a change is in the log of the mode it was made in; sign-ins are in the live log', async () => {
    // Prepare: a person signs in (a wrong code first), then changes settings in test and in live mode
    const email = `owner-${randomUUID()}@example.test`;
    const ip = '192.0.2.44';
    const post = (handler: typeof verifyOtp, path: string, body: unknown) =>
      invokeHttp(handler, apiEvent({ method: 'POST', path, body, sourceIp: ip }));
    const first = await post(requestOtp, '/api/auth/request-otp', { email });
    expect((await post(verifyOtp, '/api/auth/verify-otp', { request_id: first.body.request_id, otp: otpOf(email) })).status).toBe(200);
    const second = await post(requestOtp, '/api/auth/request-otp', { email });
    const wrongCode = String((Number(otpOf(email)) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await post(verifyOtp, '/api/auth/verify-otp', { request_id: second.body.request_id, otp: wrongCode });
    const token = (await post(verifyOtp, '/api/auth/verify-otp', { request_id: second.body.request_id, otp: otpOf(email) })).body.token;
    // Act
    const test = await call.settings(token, ['https://test.example']);
    const live = await invokeHttp(
      updateSettings,
      apiEvent({
        method: 'PUT',
        path: '/api/settings',
        headers: as(token, { Livemode: 'true' }),
        body: { checkout_origins: ['https://live.example'] },
      }),
    );
    // Assess
    expect([wrong.status, test.status, live.status]).toEqual([401, 200, 200]);
    const testLog = await wholeLog(token);
    const liveLog = await wholeLog(token, { Livemode: 'true' });
    expect(testLog.map((entry) => [entry.action, entry.livemode])).toEqual([['settings.update', false]]);
    expect(liveLog.map((entry) => [entry.action, entry.livemode, entry.ip])).toEqual([
      ['settings.update', true, '127.0.0.1'],
      ['auth.sign_in', true, ip],
      ['auth.sign_in_failed', true, ip],
      ['auth.sign_in', true, ip],
    ]);
    for (const entry of liveLog) expect(entry.actor).toMatchObject({ type: 'user', email });
  });
});

/** The newest code sent to the address (the local outbox lists newest first). */
const otpOf = (email: string) => /\b(\d{6})\b/.exec(listLocalOutbox().find((m) => m.to === email)!.text)![1]!;
