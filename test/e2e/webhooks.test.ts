import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The stream and queue pollers read every merchant's records: on this file's own table and queues they see only its
// own. Retries are made quick with WEBHOOK_RETRY_BASE_MS. Both set before any handler reads its environment.
const own = await vi.hoisted(async () => {
  process.env.WEBHOOK_RETRY_BASE_MS = '100';
  return (await import('../support/own-table.ts')).useOwnTable('webhooks-e2e', { queues: true });
});
import type { Gateway } from '../../infra/local/gateway.ts';
import type { OpenApiDocument } from '../../infra/openapi/document.ts';
import { type Api, apiClient, type Schemas } from '../support/api-client.ts';
import { newMerchant } from '../support/merchant.ts';
import { payloadChecker } from '../support/openapi.ts';
import { startOwnWorkers } from '../support/own-table.ts';
import { freshCard } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';
import { startTestGateway } from '../support/runtime.ts';

/**
 * Webhooks as a merchant sees them, against what `npm start` runs (the gateway, the table-stream and queue pollers),
 * here in the test process: events of real payments arrive signed, failures are retried with the same webhook-id, 410
 * disables the endpoint; an endpoint changed and its secret rotated, an event read and sent again. Calls go through
 * the typed client (checked against the document), and every body received must match the `webhooks` section of the
 * OpenAPI document the gateway serves.
 */
describe('webhook delivery from the local runtime', () => {
  let gateway: Gateway;
  let workers: { stop(): Promise<void> };
  let api: Api;
  /** checks a delivered body against the `webhooks` section of the document the runtime serves */
  let matchesDocument: (body: string) => void;
  beforeAll(async () => {
    const [started, running, { apiKey }] = await Promise.all([startTestGateway(), startOwnWorkers(own), newMerchant()]);
    [gateway, workers] = [started, running];
    api = (await apiClient(gateway.url))(apiKey);
    matchesDocument = payloadChecker((await (await fetch(`${gateway.url}/api/openapi.json`)).json()) as OpenApiDocument);
  });
  afterAll(async () => {
    await workers?.stop();
    await gateway?.close();
  });

  const pay = (amount: number) =>
    api.POST('/api/payments/create', {
      body: { amount, currency: 'usd', payment_method: { type: 'card', card: { number: freshCard(), exp_month: 12, exp_year: 2034, cvc: '123' } } },
    });
  const configure = (url: string, events: ('payment.succeeded' | '*')[]) => api.POST('/api/webhooks/configure', { body: { url, events } });
  const remove = (id: string) => api.DELETE('/api/webhooks/{id}', { params: { path: { id } } });

  it('delivers payment.succeeded signed so that the standardwebhooks library verifies it; 500, 500, 200 arrive as three tries of one id', async () => {
    // Prepare: an endpoint failing twice before it succeeds
    const receiver = await startReceiver([500, 500, 200]);
    const configured = await configure(receiver.url, ['payment.succeeded']);
    expect(configured.response.status).toBe(200);
    const { id: webhookId, secret } = configured.data!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    try {
      // Act
      const payment = await pay(4321);
      await receiver.waitFor(3);
      // Assess: every try carries the same id and a valid signature over the event
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(1);
      const verifier = new Webhook(secret!);
      for (const delivery of receiver.received) {
        const event = verifier.verify(delivery.body, delivery.headers as Record<string, string>) as Record<string, unknown>;
        matchesDocument(delivery.body);
        expect(event).toMatchObject({
          id: ids[0],
          type: 'payment.succeeded',
          data: { object: { id: payment.data!.id, status: 'succeeded', amount: 4321 } },
        });
      }
      const tampered = receiver.received[2]!.body.replace('4321', '9999');
      expect(() => verifier.verify(tampered, receiver.received[2]!.headers as Record<string, string>)).toThrow();

      const log = await waitForLog(ids[0] as string, (e) => e.delivered);
      expect(log).toMatchObject({ id: ids[0], event: 'payment.succeeded', delivered: true, attempts: 3, last_status_code: 200 });
    } finally {
      await remove(webhookId);
      await receiver.close();
    }
  });

  it('disables an endpoint that answers 410 Gone and stops delivering to it', async () => {
    const receiver = await startReceiver([410]);
    const webhookId = (await configure(receiver.url, ['*'])).data!.id;
    try {
      await pay(1234);
      await receiver.waitFor(1);
      matchesDocument(receiver.received[0]!.body);
      const endpoint = await waitForEndpoint(webhookId, (w) => w.status === 'disabled');
      expect(endpoint.status).toBe('disabled');
      const test = await api.POST('/api/webhooks/test', { body: { event: 'payment.succeeded' } });
      expect(test.response.status).toBe(400); // no active endpoint left
    } finally {
      await remove(webhookId);
      await receiver.close();
    }
  });

  it('changes an endpoint, rotates its secret (both verify), reads an event with its data and sends it again', async () => {
    // Prepare: an endpoint for another event, then changed to take payments, with its secret rotated
    const receiver = await startReceiver([200]);
    const configured = await configure(receiver.url, ['*']);
    const { id: webhookId, secret: oldSecret } = configured.data!;
    try {
      const changed = await api.PUT('/api/webhooks/{id}', { params: { path: { id: webhookId } }, body: { events: ['payment.succeeded'] } });
      const rotated = await api.POST('/api/webhooks/{id}/rotate-secret', { params: { path: { id: webhookId } } });
      const read = await api.GET('/api/webhooks/{id}', { params: { path: { id: webhookId } } });
      // Act: a payment's event arrives; it is read back and sent again
      const payment = await pay(2468);
      await receiver.waitFor(1);
      const eventId = receiver.received[0]!.headers['webhook-id'] as string;
      const event = await api.GET('/api/events/{id}', { params: { path: { id: eventId } } });
      const redelivered = await api.POST('/api/events/{id}/redeliver', { params: { path: { id: eventId } }, body: {} });
      await receiver.waitFor(2);
      // Assess
      expect(changed.data).toMatchObject({ id: webhookId, events: ['payment.succeeded'], status: 'active' });
      expect(read.data).toEqual(changed.data);
      const newSecret = rotated.data!.secret!;
      for (const delivery of receiver.received) {
        matchesDocument(delivery.body);
        expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
        for (const secret of [oldSecret!, newSecret]) {
          expect(new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).toMatchObject({ id: eventId });
        }
      }
      expect(receiver.received[1]!.headers['webhook-id']).toBe(eventId);
      expect(event.data).toMatchObject({ id: eventId, event: 'payment.succeeded', data: { object: { id: payment.data!.id, amount: 2468 } } });
      expect(redelivered.data).toEqual({ object: 'event_redelivery', event_id: eventId, livemode: false, webhook_ids: [webhookId] });
    } finally {
      await remove(webhookId);
      await receiver.close();
    }
  });

  /** Polls the API (not a sleep: each read is a real request) until the condition holds. */
  async function waitForLog(eventId: string, ok: (e: Schemas['WebhookEvent']) => boolean) {
    for (;;) {
      const page = await api.GET('/api/webhooks/events', { params: { query: { limit: 100 } } });
      const entry = page.data!.data.find((e) => e.id === eventId);
      if (entry && ok(entry)) return entry;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async function waitForEndpoint(id: string, ok: (w: Schemas['Webhook']) => boolean) {
    for (;;) {
      const endpoint = (await api.GET('/api/webhooks')).data!.data.find((w) => w.id === id);
      if (endpoint && ok(endpoint)) return endpoint;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
});
