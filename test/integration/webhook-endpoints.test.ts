import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
// Reads the table's stream: a table of its own with one (the suite's shared table has none).
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('webhook-endpoints', { stream: true }));
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as configure } from '../../functions/webhooks/configure.ts';
import { handler as get } from '../../functions/webhooks/get.ts';
import { handler as list } from '../../functions/webhooks/list.ts';
import { handler as rotate } from '../../functions/webhooks/rotate-secret.ts';
import { handler as test } from '../../functions/webhooks/test.ts';
import { handler as update } from '../../functions/webhooks/update.ts';
import { handler as worker } from '../../functions/workers/webhook-delivery.ts';
import { clock } from '../../shared/model/clock.ts';
import { ROTATION_MS, SECRET_OVERLAP_MS } from '../../shared/domain/webhooks.ts';
import { eventsQueue, type EventsMessage } from '../../shared/events/queue.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { webhookKeys } from '../../shared/store/keys.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf, testOwner } from '../support/merchant.ts';
import { BAD_METADATA, FULL_METADATA } from '../support/metadata.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { type ReceivedWebhook, startReceiver } from '../support/receiver.ts';
import { streamEvents } from '../support/stream.ts';

/** One webhook endpoint read and changed (docs/api.md "Lists": `GET|PUT /api/webhooks/:id`). */
const call = {
  configure: (key: string, body: unknown) =>
    invokeHttp(configure, apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: bearer(key), body })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/webhooks/${id}`, headers: bearer(key) })),
  update: (key: string, id: string, body: unknown) =>
    invokeHttp(update, apiEvent({ method: 'PUT', path: `/api/webhooks/${id}`, headers: bearer(key), body })),
  rotate: (key: string, id: string, headers: Record<string, string> = {}) =>
    invokeHttp(rotate, apiEvent({ method: 'POST', path: `/api/webhooks/${id}/rotate-secret`, headers: { ...bearer(key), ...headers } })),
  test: (key: string, body: unknown) => invokeHttp(test, apiEvent({ method: 'POST', path: '/api/webhooks/test', headers: bearer(key), body })),
  list: (key: string) => invokeHttp(list, apiEvent({ method: 'GET', path: '/api/webhooks', headers: bearer(key) })),
};

const realNow = clock.now;
const realSend = eventsQueue.send;
afterEach(() => {
  clock.now = realNow;
  eventsQueue.send = realSend;
  vi.useRealTimers();
});

/** What the merchant's receiver does with a delivery: `standardwebhooks` verification at the time it arrives. */
function verifies(secret: string, delivery: ReceivedWebhook, at: number): boolean {
  vi.useFakeTimers({ toFake: ['Date'], now: at });
  try {
    new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}
const signaturesOf = (delivery: ReceivedWebhook) => String(delivery.headers['webhook-signature']).split(' ');

const liveKeyOf = async (merchantId: string): Promise<string> => {
  const made = await invokeHttp(
    createKey,
    apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
  );
  return made.body.key as string;
};

describe('an endpoint’s metadata', () => {
  it('is kept on configure, shown by get and list, replaced whole by PUT, kept by a PUT without it, emptied by {}', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'], metadata: { team: 'ops' } });
    const plain = await call.configure(apiKey, { url: 'http://127.0.0.1:9/other', events: ['*'] });
    const storedOf = async (id: string) =>
      (await db.send(new GetCommand({ TableName: TABLE, Key: webhookKeys.item(testOwner(merchantId), id) }))).Item!;
    // Assess: configure → get and list; an endpoint without metadata reads {} and stores none
    expect(made.body.metadata).toEqual({ team: 'ops' });
    expect((await call.get(apiKey, made.body.id)).body.metadata).toEqual({ team: 'ops' });
    expect((await call.list(apiKey)).body.data.map((w: { metadata: object }) => w.metadata)).toEqual([{}, { team: 'ops' }]);
    expect(plain.body.metadata).toEqual({});
    expect(await storedOf(plain.body.id)).not.toHaveProperty('metadata');
    // Act + Assess: PUT replaces it, one without it keeps it, {} empties it (and removes it from the item)
    expect((await call.update(apiKey, made.body.id, { metadata: FULL_METADATA })).body.metadata).toEqual(FULL_METADATA);
    expect((await call.update(apiKey, made.body.id, { status: 'disabled' })).body).toMatchObject({ status: 'disabled', metadata: FULL_METADATA });
    expect((await call.update(apiKey, made.body.id, { status: 'active', metadata: {} })).body).toMatchObject({ status: 'active', metadata: {} });
    expect((await call.get(apiKey, made.body.id)).body.metadata).toEqual({});
    expect(await storedOf(made.body.id)).not.toHaveProperty('metadata');
  });

  it.each(BAD_METADATA)('answers metadata of %s with 400 parameter_invalid naming metadata, on configure and PUT', async (_case, metadata) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'], metadata: { a: 'b' } });
    // Act
    const configured = await call.configure(apiKey, { url: 'http://127.0.0.1:9/two', events: ['*'], metadata });
    const updated = await call.update(apiKey, made.body.id, { metadata });
    // Assess
    for (const res of [configured, updated]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid' });
      expect(res.body.error.param.split('.')[0]).toBe('metadata');
    }
    expect((await call.list(apiKey)).body.data.map((w: { id: string; metadata: object }) => [w.id, w.metadata])).toEqual([
      [made.body.id, { a: 'b' }],
    ]);
  });
});

describe('GET /api/webhooks/:id', () => {
  it('answers the endpoint as listed, without its secret', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['payment.succeeded'] });
    // Act
    const res = await call.get(apiKey, made.body.id);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: made.body.id,
      object: 'webhook',
      livemode: false,
      url: 'http://127.0.0.1:9/hooks',
      events: ['payment.succeeded'],
      status: 'active',
      created_at: made.body.created_at,
      metadata: {},
    });
  });

  it("answers 404 for another merchant's endpoint, the other mode's, an unknown id and an id of the wrong shape", async () => {
    // Prepare
    const owner = await newMerchant();
    const stranger = await newMerchant();
    const made = await call.configure(owner.apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    const liveKey = await liveKeyOf(owner.merchantId);
    // Act
    const answers = await Promise.all([
      call.get(stranger.apiKey, made.body.id),
      call.get(liveKey, made.body.id),
      call.get(owner.apiKey, 'whk_01jd0000000000000000000000'),
      call.get(owner.apiKey, 'pay_01jd0000000000000000000000'),
      call.get(owner.apiKey, 'nonsense'),
    ]);
    // Assess: the same answer, which reveals nothing of the other's endpoint
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: expect.stringMatching(/^Resource not found/),
      });
    }
    expect(answers[0]!.body.error.message).toBe(`Resource not found: no webhook endpoint ${made.body.id} in test mode`);
    expect(answers[1]!.body.error.message).toBe(`Resource not found: no webhook endpoint ${made.body.id} in live mode`);
  });
});

describe('PUT /api/webhooks/:id', () => {
  it('changes the url, events and status sent, keeps the others, and reads back what it answered', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['payment.succeeded'] });
    // Act
    const moved = await call.update(apiKey, made.body.id, { url: 'http://127.0.0.1:9/v2/hooks' });
    const widened = await call.update(apiKey, made.body.id, { events: ['payment.refunded', 'payment.refunded', 'payment.captured'] });
    const disabled = await call.update(apiKey, made.body.id, { status: 'disabled' });
    const everything = await call.update(apiKey, made.body.id, { events: ['*', 'payment.failed'], status: 'active' });
    const read = await call.get(apiKey, made.body.id);
    // Assess
    expect(moved.body).toMatchObject({ url: 'http://127.0.0.1:9/v2/hooks', events: ['payment.succeeded'], status: 'active' });
    expect(widened.body).toMatchObject({ url: 'http://127.0.0.1:9/v2/hooks', events: ['payment.refunded', 'payment.captured'] });
    expect(disabled.body).toMatchObject({ status: 'disabled', events: ['payment.refunded', 'payment.captured'] });
    expect(everything.body).toMatchObject({ status: 'active', events: ['*'] });
    expect(read.body).toEqual(everything.body);
    expect(everything.body).not.toHaveProperty('secret');
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/'],
    ['https://10.0.0.1/hooks'],
    ['https://[fd00:ec2::254]/'],
    ['https://metadata.google.internal/'],
    ['http://hooks.example.com/'],
    ['https://user:pass@hooks.example.com/'],
  ])('refuses the url %s as configure does, and keeps the endpoint as it was', async (url) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    // Act
    const res = await call.update(apiKey, made.body.id, { url, status: 'disabled' });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'url_not_allowed',
      param: 'url',
      message: expect.stringMatching(/^Invalid request body/),
    });
    expect((await call.get(apiKey, made.body.id)).body).toMatchObject({ url: 'http://127.0.0.1:9/hooks', status: 'active' });
  });

  it.each([
    [{ events: [] }, 'events', 'parameter_invalid'],
    [{ events: ['payment.exploded'] }, 'events.0', 'parameter_invalid'],
    [{ status: 'paused' }, 'status', 'parameter_invalid'],
    [{ url: '' }, 'url', 'parameter_invalid'],
    [{ url: 42 }, 'url', 'parameter_invalid'],
  ])('answers 400 in the documented shape to %o', async (body, param, code) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    // Act
    const res = await call.update(apiKey, made.body.id, body);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param, message: expect.stringMatching(/^Invalid request body: .+/) });
    expect(res.body.error.message).not.toMatch(/expected|\/\^/);
  });

  it("answers 404 for another merchant's endpoint and the other mode's, and changes nothing", async () => {
    // Prepare
    const owner = await newMerchant();
    const stranger = await newMerchant();
    const made = await call.configure(owner.apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    const liveKey = await liveKeyOf(owner.merchantId);
    // Act
    const byStranger = await call.update(stranger.apiKey, made.body.id, { status: 'disabled' });
    const byLive = await call.update(liveKey, made.body.id, { url: 'http://127.0.0.1:9/elsewhere' });
    // Assess
    expect(byStranger.status).toBe(404);
    expect(byLive.status).toBe(404);
    expect((await call.get(owner.apiKey, made.body.id)).body).toMatchObject({ url: 'http://127.0.0.1:9/hooks', status: 'active' });
  });
});

describe('POST /api/webhooks/:id/rotate-secret', () => {
  it('answers a new secret once; deliveries verify with either secret for 24 hours, then with the new one only', async () => {
    // Prepare: an endpoint at a local receiver; the events queue handed to the worker by the test, as SQS would
    const { apiKey, merchantId } = await newMerchant();
    const receiver = await startReceiver([200]);
    const sent: EventsMessage[] = [];
    eventsQueue.send = async (messages) => void sent.push(...messages);
    const deliverQueued = async () => {
      await streamEvents(merchantId);
      await worker(queueEvent(sent.splice(0), 'events'), fakeContext());
    };
    try {
      const made = await call.configure(apiKey, { url: receiver.url, events: ['payment.succeeded', 'payment.captured'] });
      const oldSecret = made.body.secret as string;
      // Act: rotate, an event within the 24 hours, then one after them (the clock moved past them)
      const rotated = await call.rotate(apiKey, made.body.id);
      const newSecret = rotated.body.secret as string;
      const payment = await payments.create(apiKey, paymentBody());
      await deliverQueued();
      const within = Date.now();
      const after = Date.parse(rotated.body.previous_secret_expires_at) + 1_000;
      clock.now = () => after;
      await payments.capture(apiKey, payment.body.id);
      await deliverQueued();
      // Assess: the answer
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ id: made.body.id, object: 'webhook', status: 'active', secret: expect.stringMatching(/^whsec_/) });
      expect(newSecret).not.toBe(oldSecret);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - within).toBeGreaterThan(SECRET_OVERLAP_MS - 60_000);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - within).toBeLessThanOrEqual(SECRET_OVERLAP_MS);
      expect((await call.get(apiKey, made.body.id)).body).not.toHaveProperty('secret');
      // within 24 hours: two v1 signatures, and the receiver verifies with either secret
      expect(receiver.received).toHaveLength(2);
      const [first, second] = receiver.received as [ReceivedWebhook, ReceivedWebhook];
      expect(JSON.parse(first.body)).toMatchObject({ type: 'payment.succeeded' });
      expect(signaturesOf(first)).toEqual([expect.stringMatching(/^v1,/), expect.stringMatching(/^v1,/)]);
      expect(verifies(oldSecret, first, within)).toBe(true);
      expect(verifies(newSecret, first, within)).toBe(true);
      // after them: one signature, the new secret's; the old secret no longer verifies
      expect(JSON.parse(second.body)).toMatchObject({ type: 'payment.captured' });
      expect(signaturesOf(second)).toEqual([expect.stringMatching(/^v1,/)]);
      expect(verifies(newSecret, second, after)).toBe(true);
      expect(verifies(oldSecret, second, after)).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it('keeps both secrets sealed in the table, and a replay of the rotation withholds the secret', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    const headers = { 'Idempotency-Key': `rotate-${randomUUID()}` };
    // Act
    const rotated = await call.rotate(apiKey, made.body.id, headers);
    const replayed = await call.rotate(apiKey, made.body.id, headers);
    const stored = await db.send(new GetCommand({ TableName: TABLE, Key: webhookKeys.item(testOwner(merchantId), made.body.id) }));
    // Assess
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).not.toHaveProperty('secret');
    expect(replayed.body.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);
    expect(stored.Item).toMatchObject({ secret_sealed: expect.stringMatching(/^v1\./), previous_secret_sealed: expect.stringMatching(/^v1\./) });
    const item = JSON.stringify(stored.Item);
    for (const secret of [made.body.secret as string, rotated.body.secret as string]) expect(item).not.toContain(secret.slice(6, 30));
  });

  it('rotating again within the 24 hours signs with the two newest secrets only', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const receiver = await startReceiver([200]);
    try {
      const made = await call.configure(apiKey, { url: receiver.url, events: ['*'] });
      // Act
      const once = await call.rotate(apiKey, made.body.id);
      clock.now = () => realNow() + ROTATION_MS; // past the first rotation's calls
      const twice = await call.rotate(apiKey, made.body.id);
      const delivered = await call.test(apiKey, { event: 'payment.succeeded', webhook_id: made.body.id });
      // Assess
      expect(delivered.body).toMatchObject({ delivered: true, status_code: 200 });
      const [delivery] = receiver.received as [ReceivedWebhook];
      expect(signaturesOf(delivery)).toHaveLength(2);
      expect(verifies(twice.body.secret, delivery, Date.now())).toBe(true);
      expect(verifies(once.body.secret, delivery, Date.now())).toBe(true);
      expect(verifies(made.body.secret, delivery, Date.now())).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it('20 rotations at once make one new secret: one 200, the others 409 operation_in_progress; deliveries verify with it', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const receiver = await startReceiver([200]);
    try {
      const made = await call.configure(apiKey, { url: receiver.url, events: ['*'] });
      // Act
      const answers = await Promise.all(Array.from({ length: 20 }, () => call.rotate(apiKey, made.body.id)));
      const delivered = await call.test(apiKey, { event: 'payment.succeeded', webhook_id: made.body.id });
      // Assess
      const won = answers.filter((a) => a.status === 200);
      const lost = answers.filter((a) => a.status !== 200);
      expect(won).toHaveLength(1);
      for (const answer of lost) {
        expect(answer.status).toBe(409);
        expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'operation_in_progress' });
        expect(answer.body.error.message).toMatch(/^Operation in progress: /);
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      expect(delivered.body).toMatchObject({ delivered: true, status_code: 200 });
      const [delivery] = receiver.received as [ReceivedWebhook];
      expect(signaturesOf(delivery)).toHaveLength(2);
      expect(verifies(won[0]!.body.secret, delivery, Date.now())).toBe(true);
      expect(verifies(made.body.secret, delivery, Date.now())).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it("answers 404 for another merchant's endpoint, the other mode's and an unknown one, and rotates nothing", async () => {
    // Prepare
    const owner = await newMerchant();
    const stranger = await newMerchant();
    const receiver = await startReceiver([200]);
    try {
      const made = await call.configure(owner.apiKey, { url: receiver.url, events: ['*'] });
      const liveKey = await liveKeyOf(owner.merchantId);
      // Act
      const answers = await Promise.all([
        call.rotate(stranger.apiKey, made.body.id),
        call.rotate(liveKey, made.body.id),
        call.rotate(owner.apiKey, 'whk_01jd0000000000000000000000'),
      ]);
      await call.test(owner.apiKey, { event: 'payment.succeeded' });
      // Assess: still signed with the one secret configured
      for (const res of answers) expect(res.status).toBe(404);
      const [delivery] = receiver.received as [ReceivedWebhook];
      expect(signaturesOf(delivery)).toHaveLength(1);
      expect(verifies(made.body.secret, delivery, Date.now())).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
