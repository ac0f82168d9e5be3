import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
// Reads the table's stream: a table of its own with one (the suite's shared table has none).
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('webhooks', { stream: true }));
import { handler as configure } from '../../functions/webhooks/configure.ts';
import { handler as remove } from '../../functions/webhooks/delete.ts';
import { handler as events } from '../../functions/webhooks/events.ts';
import { handler as list } from '../../functions/webhooks/list.ts';
import { handler as test } from '../../functions/webhooks/test.ts';
import { handler as worker } from '../../functions/workers/webhook-delivery.ts';
import { retryDelayMs, retryPolicy } from '../../shared/domain/webhook-delivery.ts';
import { newEvent } from '../../shared/model/events.ts';
import { newId } from '../../shared/model/ids.ts';
import { eventsQueue, type EventsMessage } from '../../shared/events/queue.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { eventPut } from '../../shared/store/events.ts';
import { webhookKeys } from '../../shared/store/keys.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';
import { streamEvents } from '../support/stream.ts';

const call = {
  configure: (key: string, body: unknown) =>
    invokeHttp(configure, apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: bearer(key), body })),
  list: (key: string, query?: Record<string, string>) =>
    invokeHttp(list, apiEvent({ method: 'GET', path: '/api/webhooks', headers: bearer(key), query })),
  remove: (key: string, id: string) => invokeHttp(remove, apiEvent({ method: 'DELETE', path: `/api/webhooks/${id}`, headers: bearer(key) })),
  test: (key: string, body: unknown) => invokeHttp(test, apiEvent({ method: 'POST', path: '/api/webhooks/test', headers: bearer(key), body })),
  events: (key: string, query: Record<string, string> = {}) =>
    invokeHttp(events, apiEvent({ method: 'GET', path: '/api/webhooks/events', headers: bearer(key), query })),
};

/** The worker invoked as Lambda would invoke it, with the messages that were sent to the events queue. */
const runWorker = (messages: EventsMessage[]) => worker(queueEvent(messages, 'events'), fakeContext());

const realSend = eventsQueue.send;
afterEach(() => {
  eventsQueue.send = realSend;
});

describe('webhook endpoints', () => {
  it('configures an endpoint with a whsec_ secret shown once, lists it without the secret, deletes it', async () => {
    const { apiKey, merchantId } = await newMerchant();
    const made = await call.configure(apiKey, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['payment.succeeded', 'payment.succeeded', 'payment.refunded'],
    });
    const stored = await db.send(new GetCommand({ TableName: TABLE, Key: webhookKeys.item(testOwner(merchantId), made.body.id) }));
    const listed = await call.list(apiKey);
    const removed = await call.remove(apiKey, made.body.id);
    const again = await call.remove(apiKey, made.body.id);
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: ['payment.succeeded', 'payment.refunded'],
      status: 'active',
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(Buffer.from(made.body.secret.slice(6), 'base64')).toHaveLength(32);
    // the table keeps the secret sealed: neither the whsec_ string nor its key bytes are in the item
    expect(stored.Item).toMatchObject({ secret_sealed: expect.stringMatching(/^v1\./) });
    expect(JSON.stringify(stored.Item)).not.toContain(made.body.secret.slice(6, 30));
    expect(listed.body.data).toEqual([
      {
        id: made.body.id,
        object: 'webhook',
        livemode: false,
        url: made.body.url,
        events: made.body.events,
        status: 'active',
        created_at: made.body.created_at,
        metadata: {},
      },
    ]);
    expect(removed.status).toBe(200);
    expect(again.status).toBe(404);
    expect((await call.list(apiKey)).body.data).toEqual([]);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/'],
    ['https://169.254.169.254/'],
    ['https://10.0.0.1/hooks'],
    ['https://192.168.0.10/hooks'],
    ['https://172.16.0.1/hooks'],
    ['https://[fd00:ec2::254]/'],
    ['https://[::ffff:10.0.0.1]/'],
    ['https://100.64.0.1/'],
    ['https://0.0.0.0/'],
    ['https://metadata.google.internal/'],
    ['http://hooks.example.com/'],
    ['ftp://hooks.example.com/'],
    ['https://user:pass@hooks.example.com/'],
    ['not a url'],
  ])('refuses to configure %s', async (url) => {
    const { apiKey } = await newMerchant();
    const res = await call.configure(apiKey, { url, events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringMatching(/^Invalid request body(: .+)?$/),
      param: 'url',
    });
  });

  it.each([
    [{ url: 'http://127.0.0.1:9/x', events: [] }, 'events'],
    [{ url: 'http://127.0.0.1:9/x', events: ['payment.exploded'] }, 'events.0'],
    [{ url: 'http://127.0.0.1:9/x' }, 'events'],
    [{ events: ['*'] }, 'url'],
  ])('answers 400 to %o', async (body, param) => {
    const { apiKey } = await newMerchant();
    const res = await call.configure(apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('takes up to 16 endpoints per merchant', async () => {
    const { apiKey } = await newMerchant();
    const answers = await Promise.all(
      Array.from({ length: 18 }, (_, i) => call.configure(apiKey, { url: `http://127.0.0.1:9/h${i}`, events: ['*'] })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(16);
    expect(answers.filter((a) => a.status === 400).every((a) => a.body.error.code === 'too_many_webhooks')).toBe(true);
    const firstPage = (await call.list(apiKey)).body;
    expect(firstPage.data).toHaveLength(10);
    expect(firstPage.has_more).toBe(true);
    expect((await call.list(apiKey, { starting_after: firstPage.data[9].id })).body.data).toHaveLength(6);
    expect((await call.list(apiKey, { limit: '100' })).body.data).toHaveLength(16);
  });

  it("answers 404 when deleting another merchant's endpoint", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const theirs = await call.configure(b.apiKey, { url: 'http://127.0.0.1:9/x', events: ['*'] });
    expect((await call.remove(a.apiKey, theirs.body.id)).status).toBe(404);
    expect((await call.list(b.apiKey)).body.data).toHaveLength(1);
  });
});

describe('POST /api/webhooks/test', () => {
  it('delivers a signed test event synchronously and reports it', async () => {
    const { apiKey } = await newMerchant();
    const receiver = await startReceiver([200]);
    const made = await call.configure(apiKey, { url: receiver.url, events: ['subscription.renewed'] });
    try {
      const res = await call.test(apiKey, { event: 'subscription.renewed' });
      expect(res.body).toMatchObject({ delivered: true, status_code: 200, latency_ms: expect.any(Number), webhook_id: made.body.id });
      const event = new Webhook(made.body.secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>);
      expect(event).toMatchObject({ type: 'subscription.renewed', id: expect.stringMatching(/^evt_/) });
    } finally {
      await receiver.close();
    }
  });

  it('reports delivered: false with status_code 0 when the endpoint is down', async () => {
    const { apiKey } = await newMerchant();
    const receiver = await startReceiver();
    await receiver.close(); // nothing listens there any more
    await call.configure(apiKey, { url: receiver.url, events: ['*'] });
    const res = await call.test(apiKey, { event: 'payment.failed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: false, status_code: 0 });
  });

  it('answers 400 for an unknown event and when no endpoint is configured for it', async () => {
    const { apiKey } = await newMerchant();
    const unknown = await call.test(apiKey, { event: 'payment.exploded' });
    const none = await call.test(apiKey, { event: 'payment.succeeded' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('event');
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('no_webhook_endpoint');
  });
});

describe('the first delivery round', () => {
  it('reads the merchant the stream names beside the event, and delivers only to the event’s own merchant whatever a message names', async () => {
    // Prepare: two merchants, each with an endpoint for every event; a payment of the first one
    const first = await newMerchant();
    const other = await newMerchant();
    const [firstReceiver, otherReceiver] = [await startReceiver([200]), await startReceiver([200])];
    const endpoint = await call.configure(first.apiKey, { url: firstReceiver.url, events: ['*'] });
    await call.configure(other.apiKey, { url: otherReceiver.url, events: ['*'] });
    const sent: EventsMessage[] = [];
    eventsQueue.send = async (messages) => void sent.push(...messages);
    const payment = await payments.create(first.apiKey, paymentBody());
    await streamEvents(first.merchantId);
    try {
      // Act: the stream's message, naming the other merchant instead
      expect(sent).toEqual([expect.objectContaining({ kind: 'event', merchant_id: first.merchantId, livemode: false })]);
      await runWorker(sent.map((m) => ({ ...m, merchant_id: other.merchantId })));
      // Assess: the event reached its own merchant's endpoint, signed with its secret, and nothing reached the other's
      expect(firstReceiver.received).toHaveLength(1);
      const delivered = new Webhook(endpoint.body.secret).verify(
        firstReceiver.received[0]!.body,
        firstReceiver.received[0]!.headers as Record<string, string>,
      );
      expect(delivered).toMatchObject({ type: 'payment.succeeded', data: { object: { id: payment.body.id } } });
      expect(otherReceiver.received).toHaveLength(0);
    } finally {
      await Promise.all([firstReceiver.close(), otherReceiver.close()]);
    }
  });
});

describe('the delivery log', () => {
  it('lists deliveries newest first and filters by event and delivered', async () => {
    const { apiKey, merchantId } = await newMerchant();
    const receiver = await startReceiver([200]);
    await call.configure(apiKey, { url: receiver.url, events: ['payment.captured'] });
    const sent: EventsMessage[] = [];
    eventsQueue.send = async (messages) => void sent.push(...messages);
    const p = await payments.create(apiKey, paymentBody());
    await payments.capture(apiKey, p.body.id);
    await streamEvents(merchantId);
    await runWorker(sent.splice(0));
    try {
      const all = await call.events(apiKey);
      const captured = await call.events(apiKey, { event: 'payment.captured' });
      const delivered = await call.events(apiKey, { delivered: 'true' });
      const undelivered = await call.events(apiKey, { delivered: 'false' });
      expect(all.body.data.map((e: { event: string }) => e.event)).toEqual(['payment.captured', 'payment.succeeded']);
      expect(captured.body.data).toEqual([expect.objectContaining({ event: 'payment.captured', delivered: true })]);
      expect(delivered.body.data.map((e: { event: string }) => e.event)).toEqual(['payment.captured']);
      expect(undelivered.body.data.map((e: { event: string }) => e.event)).toEqual(['payment.succeeded']);
      expect((await call.events(apiKey, { delivered: 'maybe' })).status).toBe(400);
    } finally {
      await receiver.close();
    }
  });
});

describe('the delivery log, written across shards', () => {
  it('pages through every event once, newest first, both ways, and filters across them', async () => {
    // Prepare: 36 events (ids spread over 20 shards)
    const { apiKey, merchantId } = await newMerchant();
    const owner = testOwner(merchantId);
    const put = async (type: 'payment.succeeded' | 'payment.refunded') => {
      const event = newEvent(owner, type, { id: newId('payment'), object: 'payment' });
      await db.send(new PutCommand({ TableName: TABLE, Item: eventPut(event).Put.Item }));
      return event.id;
    };
    const ids: string[] = [];
    const refundIds: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await put('payment.succeeded'));
    for (let i = 0; i < 30; i++) {
      const id = await put(i % 3 === 0 ? 'payment.refunded' : 'payment.succeeded');
      ids.push(id);
      if (i % 3 === 0) refundIds.push(id);
    }
    const newestFirst = [...ids].reverse();
    const page = async (query: Record<string, string>) => {
      const res = await call.events(apiKey, { limit: '7', ...query });
      expect(res.status).toBe(200);
      return res.body as { data: { id: string }[]; has_more: boolean };
    };

    // Act: forwards to the oldest, then backwards from it; the refunds alone, in pages of 7
    const forwards: string[][] = [];
    for (let after: string | undefined, more = true; more;) {
      const { data, has_more } = await page(after ? { starting_after: after } : {});
      forwards.push(data.map((e) => e.id));
      after = data.at(-1)?.id;
      more = has_more;
    }
    const backwards: string[][] = [];
    for (let before = newestFirst.at(-1)!, more = true; more;) {
      const { data, has_more } = await page({ ending_before: before });
      backwards.unshift(data.map((e) => e.id));
      before = data[0]!.id;
      more = has_more;
    }
    const refundPages: string[] = [];
    for (let after: string | undefined, more = true; more;) {
      const { data, has_more } = await page({ event: 'payment.refunded', ...(after ? { starting_after: after } : {}) });
      refundPages.push(...data.map((e) => e.id));
      after = data.at(-1)?.id;
      more = has_more;
    }

    // Assess
    expect(forwards.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 1]);
    expect(forwards.flat()).toEqual(newestFirst);
    expect(backwards.flat()).toEqual(newestFirst.slice(0, -1));
    expect(refundPages).toEqual([...refundIds].reverse());
  });
});

describe('webhook retries', () => {
  it('retries after a failure with a jittered delay, and after the give-up time sends the retry to the dead-letter queue', async () => {
    // Prepare: an endpoint that always fails; retries give up at once
    const { apiKey, merchantId } = await newMerchant();
    const receiver = await startReceiver([503]);
    await call.configure(apiKey, { url: receiver.url, events: ['payment.succeeded'] });
    const sent: EventsMessage[] = [];
    eventsQueue.send = async (messages) => void sent.push(...messages);
    const realDeadLetter = eventsQueue.deadLetter;
    const giveUp = retryPolicy.giveUpAfterMs;
    try {
      await payments.create(apiKey, paymentBody());
      await streamEvents(merchantId);
      // Act 1: the first round fails → a retry is scheduled
      await runWorker(sent.splice(0));
      const [retry] = sent.splice(0);
      // Act 2: the retry fails too, past the give-up time → dead-letter queue (the real one)
      retryPolicy.giveUpAfterMs = 0;
      const dead: unknown[] = [];
      eventsQueue.deadLetter = async (message, reason) => {
        dead.push({ message, reason });
        return realDeadLetter.call(eventsQueue, message, reason);
      };
      await runWorker([{ ...(retry as Extract<EventsMessage, { kind: 'retry' }>), due_at: 0 }]);
      // Assess
      expect(retry).toMatchObject({ kind: 'retry', attempt: 2, webhook_id: expect.stringMatching(/^whk_/) });
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      expect(dead).toEqual([{ message: expect.objectContaining({ kind: 'retry', attempt: 3 }), reason: expect.stringContaining('last status 503') }]);
      const log = await call.events(apiKey);
      expect(log.body.data[0]).toMatchObject({ delivered: false, attempts: 2, last_status_code: 503 });
    } finally {
      retryPolicy.giveUpAfterMs = giveUp;
      eventsQueue.deadLetter = realDeadLetter;
      await receiver.close();
    }
  });

  /** The logger's JSON lines written while `fn` runs (Powertools prints warnings with console.warn locally). */
  async function warningsDuring(fn: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      await fn();
    } finally {
      spy.mockRestore();
    }
    return lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  it('logs every failed attempt with endpoint id, host, status, attempt and the next attempt time, without secrets or body', async () => {
    // Prepare: one endpoint answering 503 (its URL carries a token in the query), one that cannot be reached
    const { apiKey, merchantId } = await newMerchant();
    const receiver = await startReceiver([503]);
    const failing = await call.configure(apiKey, { url: `${receiver.url}?token=tok_do_not_log`, events: ['payment.succeeded'] });
    const unreachable = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['payment.succeeded'] });
    const sent: EventsMessage[] = [];
    eventsQueue.send = async (messages) => void sent.push(...messages);
    try {
      await payments.create(apiKey, paymentBody());
      await streamEvents(merchantId);
      const before = Date.now();
      // Act
      const warnings = await warningsDuring(() => runWorker(sent.splice(0)));
      // Assess
      const failures = warnings.filter((w) => w.message === 'Webhook delivery failed: retry scheduled');
      const forFailing = failures.find((w) => w.webhook_id === failing.body.id);
      const forUnreachable = failures.find((w) => w.webhook_id === unreachable.body.id);
      expect(forFailing).toMatchObject({
        level: 'WARN',
        endpoint_host: new URL(receiver.url).host,
        status_code: 503,
        attempt: 1,
        outcome: 'retry_scheduled',
        next_attempt: 2,
        event_id: expect.stringMatching(/^evt_/),
      });
      expect(forUnreachable).toMatchObject({
        endpoint_host: '127.0.0.1:9',
        status_code: 0,
        reason: expect.stringContaining('ECONNREFUSED'),
        attempt: 1,
      });
      const nextAt = Date.parse(forFailing!.next_attempt_at as string);
      expect(nextAt).toBeGreaterThanOrEqual(before);
      expect(nextAt).toBeLessThanOrEqual(Date.now() + retryPolicy.baseMs * 2);
      const retry = sent.find((m) => m.kind === 'retry' && m.webhook_id === failing.body.id);
      expect(new Date((retry as Extract<EventsMessage, { kind: 'retry' }>).due_at).toISOString()).toBe(forFailing!.next_attempt_at);
      const text = JSON.stringify(failures);
      expect(text).not.toContain('tok_do_not_log');
      expect(text).not.toContain('/hooks');
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('payment.succeeded'); // no body
    } finally {
      await receiver.close();
    }
  });

  it('logs a failed attempt that ends in the dead-letter queue, and one that disables the endpoint on 410', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const gone = await startReceiver([410]);
    const failing = await startReceiver([500]);
    const goneId = (await call.configure(apiKey, { url: gone.url, events: ['payment.succeeded'] })).body.id;
    const failingId = (await call.configure(apiKey, { url: failing.url, events: ['payment.succeeded'] })).body.id;
    const sent: EventsMessage[] = [];
    eventsQueue.send = async (messages) => void sent.push(...messages);
    const realDeadLetter = eventsQueue.deadLetter;
    eventsQueue.deadLetter = async () => undefined;
    const giveUp = retryPolicy.giveUpAfterMs;
    retryPolicy.giveUpAfterMs = -1;
    try {
      await payments.create(apiKey, paymentBody());
      await streamEvents(merchantId);
      // Act
      const warnings = await warningsDuring(() => runWorker(sent.splice(0)));
      // Assess
      expect(warnings.find((w) => w.webhook_id === goneId)).toMatchObject({
        message: 'Webhook delivery failed: endpoint answered 410 Gone and is disabled',
        status_code: 410,
        attempt: 1,
        outcome: 'endpoint_disabled',
      });
      expect(warnings.find((w) => w.webhook_id === failingId)).toMatchObject({
        message: 'Webhook delivery failed: gave up after 1 attempt, sent to the dead-letter queue',
        status_code: 500,
        attempt: 1,
        outcome: 'dead_lettered',
      });
    } finally {
      retryPolicy.giveUpAfterMs = giveUp;
      eventsQueue.deadLetter = realDeadLetter;
      await gone.close();
      await failing.close();
    }
  });

  it('draws each delay from zero up to a cap that doubles per attempt, at most 12 hours', () => {
    expect(retryDelayMs(1, () => 0)).toBe(0);
    expect(retryDelayMs(1, () => 0.999999)).toBe(Math.floor(0.999999 * retryPolicy.baseMs * 2));
    expect(retryDelayMs(3, () => 0.5)).toBe(Math.floor(0.5 * retryPolicy.baseMs * 8));
    expect(retryDelayMs(40, () => 0.999999)).toBeLessThanOrEqual(12 * 60 * 60 * 1000);
    expect(retryPolicy.giveUpAfterMs).toBe(3 * 24 * 60 * 60 * 1000);
  });
});
