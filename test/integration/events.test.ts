import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
// Reads the table's stream: a table of its own with one (the suite's shared table has none).
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('events', { stream: true }));
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as get } from '../../functions/events/get.ts';
import { handler as redeliver } from '../../functions/events/redeliver.ts';
import { handler as configure } from '../../functions/webhooks/configure.ts';
import { handler as listEvents } from '../../functions/webhooks/events.ts';
import { handler as update } from '../../functions/webhooks/update.ts';
import { handler as worker } from '../../functions/workers/webhook-delivery.ts';
import { eventsQueue, type EventsMessage } from '../../shared/events/queue.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';
import { streamEvents } from '../support/stream.ts';

/** One event read with its payload, and sent again (docs/api.md "Lists": `GET /api/events/:id`, `POST /api/events/:id/redeliver`). */
const call = {
  configure: (key: string, body: unknown) =>
    invokeHttp(configure, apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: bearer(key), body })),
  update: (key: string, id: string, body: unknown) =>
    invokeHttp(update, apiEvent({ method: 'PUT', path: `/api/webhooks/${id}`, headers: bearer(key), body })),
  list: (key: string) => invokeHttp(listEvents, apiEvent({ method: 'GET', path: '/api/webhooks/events', headers: bearer(key) })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/events/${id}`, headers: bearer(key) })),
  redeliver: (key: string, id: string, body?: unknown) =>
    invokeHttp(redeliver, apiEvent({ method: 'POST', path: `/api/events/${id}/redeliver`, headers: bearer(key), body })),
};

const liveKeyOf = async (merchantId: string): Promise<string> => {
  const made = await invokeHttp(
    createKey,
    apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
  );
  return made.body.key as string;
};

/** The events queue kept by the test and handed to the worker as SQS would. */
const queued: EventsMessage[] = [];
const realSend = eventsQueue.send;
eventsQueue.send = async (messages) => void queued.push(...messages);
afterEach(() => void queued.splice(0));
afterAll(() => {
  eventsQueue.send = realSend;
});
const deliverQueued = (merchantId: string) => streamEvents(merchantId).then(() => worker(queueEvent(queued.splice(0), 'events'), fakeContext()));

/** A merchant with one payment whose payment.succeeded event went to an endpoint at a local receiver. */
async function merchantWithDeliveredEvent(events: string[] = ['payment.succeeded']) {
  const merchant = await newMerchant();
  const receiver = await startReceiver([200]);
  const endpoint = await call.configure(merchant.apiKey, { url: receiver.url, events });
  const payment = await payments.create(merchant.apiKey, paymentBody());
  await deliverQueued(merchant.merchantId);
  const [listed] = (await call.list(merchant.apiKey)).body.data;
  return { ...merchant, receiver, endpoint: endpoint.body, payment: payment.body, listed };
}

describe('GET /api/events/:id', () => {
  it('answers the event as listed, with its payload and each endpoint’s delivery', async () => {
    // Prepare
    const { apiKey, receiver, endpoint, payment, listed } = await merchantWithDeliveredEvent();
    try {
      // Act
      const res = await call.get(apiKey, listed.id);
      // Assess: the listed fields, the payload the endpoint received, and how its delivery went
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject(listed);
      expect(res.body).toMatchObject({ event: 'payment.succeeded', delivered: true });
      expect(res.body.data).toEqual(JSON.parse(receiver.received[0]!.body).data);
      expect(res.body.data.object).toMatchObject({ id: payment.id, object: 'payment', sequence: expect.any(Number) });
      expect(res.body.deliveries).toEqual([{ webhook_id: endpoint.id, delivered: true, attempts: 1, last_status_code: 200 }]);
    } finally {
      await receiver.close();
    }
  });

  it("answers 404 for another merchant's event, the other mode's, an unknown id and an id of the wrong shape", async () => {
    // Prepare
    const { apiKey, merchantId, receiver, listed } = await merchantWithDeliveredEvent();
    const stranger = await newMerchant();
    const liveKey = await liveKeyOf(merchantId);
    try {
      // Act
      const answers = await Promise.all([
        call.get(stranger.apiKey, listed.id),
        call.get(liveKey, listed.id),
        call.get(apiKey, 'evt_01jd0000000000000000000000'),
        call.get(apiKey, 'pay_01jd0000000000000000000000'),
      ]);
      // Assess
      for (const res of answers) {
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
      }
      expect(answers[0]!.body.error.message).toBe(`Resource not found: no event ${listed.id} in test mode`);
      expect(answers[1]!.body.error.message).toBe(`Resource not found: no event ${listed.id} in live mode`);
    } finally {
      await receiver.close();
    }
  });
});

describe('POST /api/events/:id/redeliver', () => {
  it('queues the event to every active endpoint subscribed to it, which receives it again under the same webhook-id', async () => {
    // Prepare: the delivered endpoint, one for other events, one disabled
    const { apiKey, merchantId, receiver, endpoint, listed } = await merchantWithDeliveredEvent();
    await call.configure(apiKey, { url: receiver.url, events: ['payment.refunded'] });
    const disabled = await call.configure(apiKey, { url: receiver.url, events: ['*'] });
    await call.update(apiKey, disabled.body.id, { status: 'disabled' });
    try {
      // Act
      const res = await call.redeliver(apiKey, listed.id);
      const messages = [...queued];
      await deliverQueued(merchantId);
      // Assess: the answer names what was queued; the queue carries ids only
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'event_redelivery', event_id: listed.id, livemode: false, webhook_ids: [endpoint.id] });
      expect(messages).toEqual([expect.objectContaining({ kind: 'retry', event_id: listed.id, webhook_id: endpoint.id, attempt: 1 })]);
      expect(Object.keys(messages[0]!).sort()).toEqual(['attempt', 'due_at', 'event_id', 'first_attempt_at', 'kind', 'object_id', 'webhook_id']);
      // the same event again, verifiable with the endpoint's secret
      expect(receiver.received).toHaveLength(2);
      const [first, again] = receiver.received;
      expect(again!.headers['webhook-id']).toBe(listed.id);
      expect(again!.body).toBe(first!.body);
      expect(new Webhook(endpoint.secret).verify(again!.body, again!.headers as Record<string, string>)).toMatchObject({ id: listed.id });
      const read = await call.get(apiKey, listed.id);
      expect(read.body).toMatchObject({ delivered: true, attempts: 2 });
      expect(read.body.deliveries).toEqual([{ webhook_id: endpoint.id, delivered: true, attempts: 2, last_status_code: 200 }]);
    } finally {
      await receiver.close();
    }
  });

  it('sends to the endpoint named, even one configured after the event, and counts it in the delivery log', async () => {
    // Prepare
    const { apiKey, merchantId, receiver, endpoint, listed } = await merchantWithDeliveredEvent();
    const late = await startReceiver([500, 200]);
    const lateEndpoint = await call.configure(apiKey, { url: late.url, events: ['payment.captured'] });
    try {
      // Act: sent to the late endpoint, which fails once, then its retry succeeds
      const res = await call.redeliver(apiKey, listed.id, { webhook_id: lateEndpoint.body.id });
      await deliverQueued(merchantId);
      const afterFailure = await call.get(apiKey, listed.id);
      const retry = queued.splice(0).map((m) => ({ ...m, due_at: 0 }));
      await worker(queueEvent(retry, 'events'), fakeContext());
      const afterRetry = await call.get(apiKey, listed.id);
      // Assess
      expect(res.body.webhook_ids).toEqual([lateEndpoint.body.id]);
      expect(receiver.received).toHaveLength(1);
      expect(late.received).toHaveLength(2);
      expect(new Webhook(lateEndpoint.body.secret).verify(late.received[1]!.body, late.received[1]!.headers as Record<string, string>)).toMatchObject(
        {
          id: listed.id,
        },
      );
      expect(retry).toEqual([expect.objectContaining({ kind: 'retry', webhook_id: lateEndpoint.body.id, attempt: 2 })]);
      expect(afterFailure.body).toMatchObject({ delivered: false, attempts: 2, last_status_code: 500 });
      expect(afterRetry.body).toMatchObject({ delivered: true, attempts: 3, last_status_code: 200 });
      expect(afterRetry.body.deliveries).toEqual(
        expect.arrayContaining([
          { webhook_id: endpoint.id, delivered: true, attempts: 1, last_status_code: 200 },
          { webhook_id: lateEndpoint.body.id, delivered: true, attempts: 2, last_status_code: 200 },
        ]),
      );
    } finally {
      await Promise.all([receiver.close(), late.close()]);
    }
  });

  it('answers 400 in the documented shape for a bad, unknown, foreign or disabled webhook_id and when no endpoint takes the event', async () => {
    // Prepare
    const { apiKey, merchantId, receiver, endpoint, listed } = await merchantWithDeliveredEvent();
    const stranger = await newMerchant();
    const foreign = await call.configure(stranger.apiKey, { url: receiver.url, events: ['*'] });
    try {
      // Act
      const malformed = await call.redeliver(apiKey, listed.id, { webhook_id: 'pay_123' });
      const wrongType = await call.redeliver(apiKey, listed.id, { webhook_id: 42 });
      const unknown = await call.redeliver(apiKey, listed.id, { webhook_id: 'whk_01jd0000000000000000000000' });
      const ofStranger = await call.redeliver(apiKey, listed.id, { webhook_id: foreign.body.id });
      await call.update(apiKey, endpoint.id, { status: 'disabled' });
      const toDisabled = await call.redeliver(apiKey, listed.id, { webhook_id: endpoint.id });
      const toNone = await call.redeliver(apiKey, listed.id, {});
      // Assess
      const shape = { type: 'invalid_request_error', message: expect.stringMatching(/^Invalid request body: .+/), param: 'webhook_id' };
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatchObject({ ...shape, code: 'parameter_invalid' });
      expect(wrongType.body.error).toMatchObject({ ...shape, code: 'parameter_invalid' });
      expect(unknown.body.error).toMatchObject({ ...shape, code: 'resource_missing' });
      expect(ofStranger.body.error).toEqual(expect.objectContaining({ ...shape, code: 'resource_missing' }));
      expect(ofStranger.body.error.message).toBe(`Invalid request body: no webhook endpoint ${foreign.body.id} in test mode`);
      expect(toDisabled.body.error).toMatchObject({ ...shape, code: 'invalid_state' });
      expect(toNone.body.error).toMatchObject({ ...shape, code: 'no_webhook_endpoint' });
      for (const res of [malformed, wrongType, unknown, ofStranger, toDisabled, toNone]) expect(res.status).toBe(400);
      expect(queued.filter((m) => m.kind === 'retry')).toEqual([]);
      await deliverQueued(merchantId);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("answers 404 for another merchant's event and the other mode's, and queues nothing", async () => {
    // Prepare
    const { apiKey, merchantId, receiver, listed } = await merchantWithDeliveredEvent();
    const stranger = await newMerchant();
    await call.configure(stranger.apiKey, { url: receiver.url, events: ['*'] });
    const liveKey = await liveKeyOf(merchantId);
    await call.configure(liveKey, { url: receiver.url, events: ['*'] });
    try {
      // Act
      const answers = await Promise.all([
        call.redeliver(stranger.apiKey, listed.id),
        call.redeliver(liveKey, listed.id),
        call.redeliver(apiKey, 'evt_01jd0000000000000000000000'),
      ]);
      // Assess
      for (const res of answers) expect(res.status).toBe(404);
      expect(queued).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
