import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshCard } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';
import { startRuntimeProcess, type RuntimeProcess } from '../support/runtime.ts';

/**
 * Webhooks as a merchant sees them, against `npm start` (its queue pollers and sweeper timer running): events of
 * real payments arrive signed, failures are retried with the same webhook-id, 410 disables the endpoint.
 * Retries are made quick with WEBHOOK_RETRY_BASE_MS.
 */
describe('webhook delivery from the local runtime', () => {
  let runtime: RuntimeProcess;
  beforeAll(async () => {
    runtime = await startRuntimeProcess({ env: { WEBHOOK_RETRY_BASE_MS: '100' } });
  });
  afterAll(() => runtime?.kill());

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${runtime.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${runtime.apiKey}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const pay = (amount: number) =>
    call('POST', '/api/payments/create', {
      amount,
      currency: 'usd',
      payment_method: { type: 'card', card: { number: freshCard(), exp_month: 12, exp_year: 2034, cvc: '123' } },
    });

  it('delivers payment.succeeded signed so that the standardwebhooks library verifies it; 500, 500, 200 arrive as three tries of one id', async () => {
    // Prepare: an endpoint failing twice before it succeeds
    const receiver = await startReceiver([500, 500, 200]);
    const configured = await call('POST', '/api/webhooks/configure', { url: receiver.url, events: ['payment.succeeded'] });
    expect(configured.status).toBe(200);
    expect(configured.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    try {
      // Act
      const payment = await pay(4321);
      await receiver.waitFor(3);
      // Assess: every try carries the same id and a valid signature over the event
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(1);
      const verifier = new Webhook(configured.body.secret);
      for (const delivery of receiver.received) {
        const event = verifier.verify(delivery.body, delivery.headers as Record<string, string>) as Record<string, unknown>;
        expect(event).toMatchObject({ id: ids[0], type: 'payment.succeeded', data: { object: { id: payment.body.id, status: 'succeeded', amount: 4321 } } });
      }
      const tampered = receiver.received[2]!.body.replace('4321', '9999');
      expect(() => verifier.verify(tampered, receiver.received[2]!.headers as Record<string, string>)).toThrow();

      const log = await waitForLog(ids[0] as string, (e) => e.delivered === true);
      expect(log).toMatchObject({ id: ids[0], event: 'payment.succeeded', delivered: true, attempts: 3, last_status_code: 200 });
    } finally {
      await call('DELETE', `/api/webhooks/${configured.body.id}`);
      await receiver.close();
    }
  });

  it('disables an endpoint that answers 410 Gone and stops delivering to it', async () => {
    const receiver = await startReceiver([410]);
    const configured = await call('POST', '/api/webhooks/configure', { url: receiver.url, events: ['*'] });
    try {
      await pay(1234);
      await receiver.waitFor(1);
      const endpoint = await waitForEndpoint(configured.body.id, (w) => w.status === 'disabled');
      expect(endpoint.status).toBe('disabled');
      const test = await call('POST', '/api/webhooks/test', { event: 'payment.succeeded' });
      expect(test.status).toBe(400); // no active endpoint left
    } finally {
      await call('DELETE', `/api/webhooks/${configured.body.id}`);
      await receiver.close();
    }
  });

  /** Polls the API (not a sleep: each read is a real request) until the condition holds. */
  async function waitForLog(eventId: string, ok: (e: Record<string, unknown>) => boolean) {
    for (;;) {
      const page = await call('GET', '/api/webhooks/events?limit=100');
      const entry = page.body.data.find((e: { id: string }) => e.id === eventId);
      if (entry && ok(entry)) return entry;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async function waitForEndpoint(id: string, ok: (w: Record<string, unknown>) => boolean) {
    for (;;) {
      const list = await call('GET', '/api/webhooks');
      const endpoint = list.body.data.find((w: { id: string }) => w.id === id);
      if (endpoint && ok(endpoint)) return endpoint;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
});
