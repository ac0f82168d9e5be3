import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { stripeFollowUp } from '../../shared/providers/stripe/follow-up.ts';
import { stripeProvider } from '../../shared/providers/stripe/index.ts';
import type { Connector, DisputeDesk, InboundWebhook, ProviderChange } from '../../shared/providers/types.ts';
import { listen } from '../../infra/local/fakes/listen.ts';
import { stripeSignature } from '../../infra/local/fakes/stripe/notifications.ts';
import { STRIPE_FAKE_CREDENTIALS, STRIPE_FAKE_WEBHOOK_SECRET, type StripeFake, startStripeFake } from '../../infra/local/fakes/stripe/server.ts';

// The real connector and SDK against the fake over HTTP; the fake's events go to a local endpoint that records them
// as they arrived (raw body, lower-cased headers), and parseWebhook reads them as the service would.
const account = { id: 'con_stripe_webhooks', mode: 'test' as const };
const originalBaseUrl = config.STRIPE_API_BASE_URL;
const fixtures = (
  JSON.parse(readFileSync(new URL('../../infra/local/fakes/contracts/stripe-fixtures3.json', import.meta.url), 'utf8')) as {
    resources: Record<string, Record<string, unknown>>;
  }
).resources;

/** A webhook endpoint: records each request and answers `status`. */
class Endpoint {
  readonly received: InboundWebhook[] = [];
  status = 200;
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      this.received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(this.status).end();
    });
  });
  url = '';

  async start() {
    this.url = `http://127.0.0.1:${await listen(this.server)}/api/connectors/con_x/webhooks`;
    return this;
  }

  close() {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }
}

let fake: StripeFake;
let endpoint: Endpoint;
let stripe: Connector;
let desk: DisputeDesk;

beforeAll(async () => {
  fake = await startStripeFake();
  endpoint = await new Endpoint().start();
  config.STRIPE_API_BASE_URL = fake.url;
  stripe = stripeProvider.connect(STRIPE_FAKE_CREDENTIALS, account);
  desk = stripeFollowUp.disputeDesk(STRIPE_FAKE_CREDENTIALS, account);
});
beforeEach(() => {
  fake.notifications.register(endpoint.url);
  fake.notifications.hold(false);
  fake.refundsPending(false);
  endpoint.status = 200;
});
afterEach(() => fake.clearFaults());
afterAll(async () => {
  await fake.close();
  await endpoint.close();
  config.STRIPE_API_BASE_URL = originalBaseUrl;
});

const parse = (webhook: InboundWebhook, credentials: { secret_key: string; webhook_secret?: string } = STRIPE_FAKE_CREDENTIALS) =>
  stripeFollowUp.parseWebhook(credentials, webhook);

/** An authorization of `amount` (EUR cents), captured whole unless `capture` is false. */
async function payment(amount = 5000, capture = true): Promise<string> {
  const paymentId = `pay_${randomUUID()}`;
  const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };
  const result = await stripe.authorize({ paymentId, idempotencyKey: `${paymentId}_1`, amount, currency: 'EUR', card, attempt: 1 });
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  if (capture) await stripe.capture(result.reference, amount, 'EUR', `${paymentId}_capture`);
  return result.reference;
}

/**
 * Every event the fake sent about `reference`, in the order made (deliveries run concurrently, so they may arrive in
 * another), as [Stripe's type, the change parseWebhook reads from the request exactly as delivered].
 */
async function eventsAbout(reference: string): Promise<Array<[string, ProviderChange | null]>> {
  await fake.notifications.idle();
  const read: Array<[string, ProviderChange | null]> = [];
  for (const notification of fake.notifications.all()) {
    const object = (JSON.parse(notification.body) as { data: { object: { id: string; payment_intent?: string } } }).data.object;
    if (object.id !== reference && object.payment_intent !== reference) continue;
    expect(endpoint.received).toContainEqual({ headers: expect.objectContaining(notification.headers), body: notification.body });
    const parsed = await parse({ headers: notification.headers, body: notification.body });
    if (!parsed.ok) throw new Error(parsed.reason);
    read.push([notification.type, parsed.notifications[0]!.change]);
  }
  return read;
}

const refundId = () => `ref_${randomUUID().replaceAll('-', '')}`;
const referenceOf = (result: Awaited<ReturnType<Connector['refund']>>) => {
  if (!result.ok) throw new Error(`expected an accepted refund, got ${JSON.stringify(result)}`);
  return result.reference;
};

describe('parseWebhook reads every event the fake sends', () => {
  it('a capture: charge.captured and payment_intent.succeeded', async () => {
    const reference = await payment();
    const capture = { object: 'capture', status: 'succeeded', paymentReference: reference };
    expect(await eventsAbout(reference)).toEqual([
      ['charge.captured', capture],
      ['payment_intent.succeeded', capture],
    ]);
  });

  it('a void: payment_intent.canceled', async () => {
    const reference = await payment(5000, false);
    await stripe.void(reference, `${reference}_void`);
    expect(await eventsAbout(reference)).toEqual([
      ['payment_intent.canceled', { object: 'cancellation', status: 'succeeded', paymentReference: reference }],
    ]);
  });

  it('a refund, named by our refund id, in our minor units; charge.refunded is not followed', async () => {
    const reference = await payment(5000);
    const ours = refundId();
    const refundReference = referenceOf(await stripe.refund(reference, 1250, 'EUR', ours));
    const refund = { object: 'refund', paymentReference: reference, refundReference, refundId: ours, amount: 1250, currency: 'EUR' };
    expect((await eventsAbout(reference)).slice(2)).toEqual([
      ['refund.created', { ...refund, status: 'succeeded' }],
      ['charge.refunded', null],
    ]);
  });

  it('a refund pending, then settled; another failed at settlement with its reason', async () => {
    fake.refundsPending(true);
    const reference = await payment(5000);
    const settled = refundId();
    const failed = refundId();
    const settling = await stripe.refund(reference, 1000, 'EUR', settled);
    const failing = await stripe.refund(reference, 2000, 'EUR', failed);
    expect(settling).toEqual({ ok: true, reference: expect.stringMatching(/^re_/), pending: true });
    fake.settleRefund(referenceOf(settling));
    fake.failRefund(referenceOf(failing));
    const refunds = (await eventsAbout(reference)).filter(([, change]) => change?.object === 'refund');
    expect(refunds.map(([type, change]) => [type, change?.object === 'refund' && [change.refundId, change.status, change.reason]])).toEqual([
      ['refund.created', [settled, 'pending', undefined]],
      ['refund.created', [failed, 'pending', undefined]],
      ['refund.updated', [settled, 'succeeded', undefined]],
      ['refund.failed', [failed, 'failed', 'expired_or_canceled_card']],
    ]);
  });

  it('a dispute opened, evidence submitted, then won', async () => {
    const reference = await payment(4200);
    const disputeReference = fake.openDispute(reference, 'product_not_received');
    await desk.submitEvidence(disputeReference, { product_description: 'A lamp' }, `${disputeReference}_evidence`);
    fake.closeDispute(disputeReference, 'won');
    const events = (await eventsAbout(reference)).slice(2);
    const dispute = {
      object: 'dispute',
      paymentReference: reference,
      disputeReference,
      amount: 4200,
      currency: 'EUR',
      reason: 'product_not_received',
    };
    expect(events.map(([type]) => type)).toEqual([
      'charge.dispute.created',
      'charge.dispute.funds_withdrawn',
      'charge.dispute.updated',
      'charge.dispute.closed',
      'charge.dispute.funds_reinstated',
    ]);
    expect(events.map(([, change]) => change)).toEqual(
      ['needs_response', 'needs_response', 'under_review', 'won', 'won'].map((status) => ({
        ...dispute,
        status,
        evidenceDueBy: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      })),
    );
  });

  it("answers Stripe's acknowledgement, with the event's id and time", async () => {
    const reference = await payment(5000, false);
    await stripe.void(reference, `${reference}_void`);
    await fake.notifications.idle();
    const sent = fake.notifications.all().at(-1)!;
    const parsed = await parse(endpoint.received.at(-1)!);
    const event = JSON.parse(sent.body) as { id: string; created: number };
    expect(parsed).toEqual({
      ok: true,
      notifications: [{ eventId: event.id, occurredAt: new Date(event.created * 1000).toISOString(), change: expect.any(Object) }],
      acknowledgement: { contentType: 'application/json', body: '{"received":true}' },
    });
    expect(sent).toMatchObject({ eventId: event.id, type: 'payment_intent.canceled', url: endpoint.url, status: 200 });
  });

  it('acknowledges and ignores a verified event it does not follow', async () => {
    const body = JSON.stringify({ ...fixtures.event, id: 'evt_other', created: Math.floor(Date.now() / 1000) });
    const parsed = await parse({ headers: { 'stripe-signature': stripeSignature(body, STRIPE_FAKE_WEBHOOK_SECRET) }, body });
    expect(parsed).toMatchObject({ ok: true, notifications: [{ eventId: 'evt_other', change: null }] });
  });
});

describe("Stripe's statuses and reasons in ours", () => {
  /** A signed event about Stripe's example `resource` with `fields` changed, as Stripe would send it. */
  const signedEvent = (type: string, resource: 'dispute' | 'refund', fields: Record<string, unknown>): InboundWebhook => {
    const object = { ...fixtures[resource], payment_intent: 'pi_example', ...fields };
    const body = JSON.stringify({ ...fixtures.event, id: `evt_${randomUUID()}`, type, data: { object } });
    return { headers: { 'stripe-signature': stripeSignature(body, STRIPE_FAKE_WEBHOOK_SECRET) }, body };
  };
  const changeOf = async (webhook: InboundWebhook) => {
    const parsed = await parse(webhook);
    return parsed.ok ? parsed.notifications[0]!.change : parsed.reason;
  };

  it.each([
    ['warning_needs_response', 'needs_response'],
    ['needs_response', 'needs_response'],
    ['warning_under_review', 'under_review'],
    ['under_review', 'under_review'],
    ['warning_closed', 'won'],
    ['won', 'won'],
    ['lost', 'lost'],
  ])('dispute %s → %s', async (stripeStatus, ours) => {
    expect(await changeOf(signedEvent('charge.dispute.updated', 'dispute', { status: stripeStatus }))).toMatchObject({ status: ours });
  });

  it('a dispute reason we do not name is general; the due date is ISO; a status Stripe adds later is not followed', async () => {
    const dispute = { reason: 'bank_cannot_process', amount: 1000, currency: 'jpy', evidence_details: { due_by: 1723679999 } };
    expect(await changeOf(signedEvent('charge.dispute.created', 'dispute', { ...dispute, status: 'needs_response' }))).toEqual({
      object: 'dispute',
      status: 'needs_response',
      paymentReference: 'pi_example',
      disputeReference: fixtures.dispute!.id,
      amount: 1000,
      currency: 'JPY',
      reason: 'general',
      evidenceDueBy: '2024-08-14T23:59:59.000Z',
    });
    expect(await changeOf(signedEvent('charge.dispute.updated', 'dispute', { status: 'prevented' }))).toBeNull();
  });

  it.each([
    ['pending', {}, 'pending', undefined],
    ['requires_action', {}, 'pending', undefined],
    ['succeeded', {}, 'succeeded', undefined],
    ['failed', { failure_reason: 'lost_or_stolen_card' }, 'failed', 'lost_or_stolen_card'],
    ['canceled', {}, 'failed', 'canceled'],
  ])('refund %s → %s', async (stripeStatus, fields, ours, reason) => {
    const change = await changeOf(signedEvent('charge.refund.updated', 'refund', { status: stripeStatus, metadata: {}, ...fields }));
    expect(change).toEqual({
      object: 'refund',
      status: ours,
      paymentReference: 'pi_example',
      refundReference: fixtures.refund!.id,
      amount: 100,
      currency: 'USD',
      ...(reason ? { reason } : {}),
    });
  });
});

describe('parseWebhook refuses what it cannot verify', () => {
  let webhook: InboundWebhook;
  beforeAll(async () => {
    const reference = await payment(5000, false);
    await stripe.void(reference, `${reference}_void`);
    await fake.notifications.idle();
    webhook = endpoint.received.at(-1)!;
  });

  it('a body changed after signing', async () => {
    const forged = { ...webhook, body: webhook.body.replace('"canceled"', '"succeeded"') };
    expect(await parse(forged)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^Stripe-Signature not verified .*: No signatures found matching/),
    });
  });

  it('a signature made with another secret', async () => {
    const headers = { ...webhook.headers, 'stripe-signature': stripeSignature(webhook.body, 'whsec_someone_else_0000000') };
    expect(await parse({ ...webhook, headers })).toMatchObject({ ok: false, reason: expect.stringMatching(/^Stripe-Signature not verified/) });
  });

  it('a signature older than the tolerance (a replayed capture)', async () => {
    const headers = {
      ...webhook.headers,
      'stripe-signature': stripeSignature(webhook.body, STRIPE_FAKE_WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 600),
    };
    expect(await parse({ ...webhook, headers })).toEqual({ ok: false, reason: expect.stringMatching(/Timestamp outside the tolerance zone$/) });
  });

  it('no Stripe-Signature header', async () => {
    expect(await parse({ headers: { 'content-type': 'application/json' }, body: webhook.body })).toEqual({
      ok: false,
      reason: 'unsigned: no Stripe-Signature header',
    });
  });

  it('a connector connected without its webhook_secret', async () => {
    expect(await parse(webhook, { secret_key: STRIPE_FAKE_CREDENTIALS.secret_key })).toEqual({
      ok: false,
      reason: expect.stringMatching(/^connect this account with its webhook_secret/),
    });
  });
});

describe('changesOf', () => {
  it('reports a refund pending, then succeeded; another failed (a late failure after success too)', async () => {
    fake.refundsPending(true);
    const reference = await payment(5000);
    const [first, second] = [refundId(), refundId()];
    const pending = referenceOf(await stripe.refund(reference, 1000, 'EUR', first));
    const failing = referenceOf(await stripe.refund(reference, 500, 'EUR', second));
    const refunds = async () => (await stripe.changesOf(reference))?.filter((change) => change.object === 'refund');
    expect(await refunds()).toEqual([
      { object: 'refund', status: 'pending', paymentReference: reference, refundReference: pending, refundId: first, amount: 1000, currency: 'EUR' },
      { object: 'refund', status: 'pending', paymentReference: reference, refundReference: failing, refundId: second, amount: 500, currency: 'EUR' },
    ]);
    fake.settleRefund(pending);
    fake.failRefund(failing);
    expect((await refunds())?.map((change) => change.object === 'refund' && [change.refundId, change.status, change.reason])).toEqual([
      [first, 'succeeded', undefined],
      [second, 'failed', 'expired_or_canceled_card'],
    ]);
    fake.failRefund(pending);
    expect((await refunds())?.map((change) => change.status)).toEqual(['failed', 'failed']);
    expect(fake.holds().find((hold) => hold.reference === reference)).toMatchObject({ captured: 5000, refunded: 0 });
  });

  it('reports the capture, and a dispute opened then lost', async () => {
    const reference = await payment(3000);
    const disputeReference = fake.openDispute(reference);
    const dispute = { object: 'dispute', paymentReference: reference, disputeReference, amount: 3000, currency: 'EUR', reason: 'fraudulent' };
    const due = expect.stringMatching(/Z$/);
    expect(await stripe.changesOf(reference)).toEqual([
      { object: 'capture', status: 'succeeded', paymentReference: reference },
      { ...dispute, status: 'needs_response', evidenceDueBy: due },
    ]);
    fake.closeDispute(disputeReference, 'lost');
    expect((await stripe.changesOf(reference))?.at(-1)).toEqual({ ...dispute, status: 'lost', evidenceDueBy: due });
  });

  it('reports a cancellation, and nothing for an authorization still waiting', async () => {
    const waiting = await payment(1000, false);
    const voided = await payment(1000, false);
    await stripe.void(voided, `${voided}_void`);
    expect(await stripe.changesOf(waiting)).toEqual([]);
    expect(await stripe.changesOf(voided)).toEqual([{ object: 'cancellation', status: 'succeeded', paymentReference: voided }]);
  });

  it('answers undefined when Stripe does not answer one of its reads', async () => {
    const reference = await payment(1000);
    fake.inject('status', { kind: 'status', status: 503 });
    expect(await stripe.changesOf(reference)).toBeUndefined();
    expect(await stripe.changesOf('pi_unknown000000000')).toBeUndefined();
  });
});

describe('disputes through the API', () => {
  it('sends the evidence by its fields and submits it, under our key', async () => {
    // Given a dispute on a captured payment
    const reference = await payment(2500);
    const disputeReference = fake.openDispute(reference, 'duplicate');
    const evidence = { duplicate_charge_explanation: 'Two orders, two lamps', customer_email_address: 'ana@example.com' };
    // When evidence is submitted
    const result = await desk.submitEvidence(disputeReference, evidence, `${disputeReference}_evidence_1`);
    // Then Stripe has it, under review, and the call carried our key
    expect(result).toEqual({ ok: true, reference: disputeReference });
    expect(fake.disputes().find((d) => d.id === disputeReference)).toEqual({
      id: disputeReference,
      paymentReference: reference,
      amount: 2500,
      currency: 'eur',
      status: 'under_review',
      evidence,
      accepted: false,
    });
    expect(fake.requests.at(-1)).toMatchObject({ operation: 'dispute_evidence', idempotencyKey: `${disputeReference}_evidence_1` });
    expect((await stripe.changesOf(reference))?.at(-1)).toMatchObject({ object: 'dispute', status: 'under_review', reason: 'duplicate' });
  });

  it('accepts a dispute (Stripe closes it lost); a closed dispute refuses more evidence or a second accept', async () => {
    const reference = await payment(2500);
    const disputeReference = fake.openDispute(reference);
    expect(await desk.accept(disputeReference, `${disputeReference}_accept`)).toEqual({ ok: true, reference: disputeReference });
    expect(fake.disputes().find((d) => d.id === disputeReference)).toMatchObject({ status: 'lost', accepted: true });
    expect(fake.requests.at(-1)).toMatchObject({ operation: 'dispute_accept', idempotencyKey: `${disputeReference}_accept` });
    expect(await desk.accept(disputeReference, `${disputeReference}_accept_2`)).toEqual({
      ok: false,
      reason: 'refused',
      message: 'This dispute is already closed (status: lost).',
    });
    expect(await desk.submitEvidence(disputeReference, { uncategorized_text: 'late' }, `${disputeReference}_evidence`)).toMatchObject({
      ok: false,
      reason: 'refused',
    });
  });
});

describe('refunds refused and failed operations', () => {
  it("refuses a refund beyond what remains, or of a disputed charge, in Stripe's words", async () => {
    const reference = await payment(2000);
    expect(await stripe.refund(reference, 2500, 'EUR', refundId())).toEqual({
      ok: false,
      reason: 'refused',
      message: 'Refund amount (2500) is greater than unrefunded amount on charge (2000)',
    });
    fake.openDispute(reference);
    expect(await stripe.refund(reference, 500, 'EUR', refundId())).toEqual({
      ok: false,
      reason: 'refused',
      message: expect.stringMatching(/has been charged back; cannot issue a refund\.$/),
    });
  });

  it('keeps outages and lost answers as the error map says', async () => {
    const reference = await payment(2000);
    fake.inject('refund', { kind: 'status', status: 503 });
    expect(await stripe.refund(reference, 500, 'EUR', refundId())).toEqual({ ok: false, reason: 'provider_down' });
    const disputeReference = fake.openDispute(reference);
    fake.inject('dispute_accept', { kind: 'accept_then_drop' }, 2);
    expect(await desk.accept(disputeReference, `${disputeReference}_accept`)).toEqual({ ok: false, reason: 'unknown' });
  });
});

describe('the fake notifier', () => {
  it('holds notifications, keeps failed deliveries for flush, and lets a test send them again in any order', async () => {
    // Given notifications held while a payment is captured and refunded
    fake.notifications.hold(true);
    const before = fake.notifications.all().length;
    const reference = await payment(5000);
    await stripe.refund(reference, 5000, 'EUR', refundId());
    const held = fake.notifications.all().slice(before);
    expect(held.map((n) => [n.type, n.status])).toEqual([
      ['charge.captured', undefined],
      ['payment_intent.succeeded', undefined],
      ['refund.created', undefined],
      ['charge.refunded', undefined],
    ]);
    // When the endpoint fails the first flush and takes the second
    const received = endpoint.received.length;
    endpoint.status = 500;
    await fake.notifications.flush();
    const failed = fake.notifications.all().slice(before);
    endpoint.status = 200;
    await fake.notifications.flush();
    // Then each was tried twice and is delivered, and every one still verifies when posted again, newest first
    expect(failed.map((n) => n.status)).toEqual([500, 500, 500, 500]);
    expect(
      fake.notifications
        .all()
        .slice(before)
        .map((n) => n.status),
    ).toEqual([200, 200, 200, 200]);
    expect(endpoint.received.length - received).toBe(8);
    for (const notification of held.toReversed()) {
      const parsed = await parse({ headers: notification.headers, body: notification.body });
      expect(parsed).toMatchObject({ ok: true, notifications: [{ eventId: notification.eventId }] });
    }
  });

  it('sends notificationDelayMs after the change; idle waits for it', async () => {
    const slow = await startStripeFake({ notificationDelayMs: 500 });
    config.STRIPE_API_BASE_URL = slow.url;
    const connector = stripeProvider.connect(STRIPE_FAKE_CREDENTIALS, account);
    config.STRIPE_API_BASE_URL = fake.url;
    try {
      slow.notifications.register(endpoint.url);
      const received = endpoint.received.length;
      const paymentId = `pay_${randomUUID()}`;
      const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };
      const authorized = await connector.authorize({ paymentId, idempotencyKey: `${paymentId}_1`, amount: 100, currency: 'EUR', card, attempt: 1 });
      if (authorized.outcome !== 'approved') throw new Error('expected an approval');
      await connector.void(authorized.reference, `${paymentId}_void`);
      expect(endpoint.received.length).toBe(received);
      await slow.notifications.idle();
      expect(endpoint.received.length).toBe(received + 1);
      expect(slow.notifications.all()).toMatchObject([{ type: 'payment_intent.canceled', status: 200 }]);
    } finally {
      await slow.close();
    }
  });

  it("sends events shaped as Stripe's fixtures: the event's keys and its object's", async () => {
    const reference = await payment(3000);
    fake.refundsPending(true);
    fake.failRefund(referenceOf(await stripe.refund(reference, 1000, 'EUR', refundId())));
    fake.closeDispute(fake.openDispute(reference), 'won');
    await fake.notifications.idle();
    const events = fake.notifications.all().map((n) => JSON.parse(n.body) as { data: { object: { object: string } } });
    // Fields the pinned SDK's types have that the fixtures' examples lack (newer, or optional and omitted there)
    const optional = new Set(['payment_intent.allowed_payment_method_types', 'refund.failure_reason']);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(Object.keys(fixtures.event!).sort());
      const { object } = event.data;
      const extra = Object.keys(object).filter((key) => !(key in fixtures[object.object]!) && !optional.has(`${object.object}.${key}`));
      expect(extra, `${object.object} fields beyond the fixture`).toEqual([]);
    }
    expect(new Set(events.map((e) => e.data.object.object))).toEqual(new Set(['charge', 'payment_intent', 'refund', 'dispute']));
  });
});

describe('/_fake control endpoints over HTTP', () => {
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(`${fake.url}${path}`, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('registers an endpoint with its secret, opens and closes a dispute, fails a refund', async () => {
    // Given an endpoint registered over HTTP with its own secret
    const secret = 'whsec_registered_over_http_123';
    expect(await post('/_fake/webhooks', { url: endpoint.url, secret })).toEqual({ status: 200, body: { url: endpoint.url } });
    const reference = await payment(2000);
    const refundReference = referenceOf(await stripe.refund(reference, 500, 'EUR', refundId()));
    // When a dispute is opened and won and the refund fails, over HTTP
    const opened = await post('/_fake/disputes', { reference, reason: 'unrecognized' });
    const id = String(opened.body.id);
    const closed = await post(`/_fake/disputes/${id}/close`, { outcome: 'won' });
    const failed = await post(`/_fake/refunds/${refundReference}/fail`);
    // Then each answered, the fake changed, and the events verify with that secret only
    expect([opened.status, closed, failed]).toEqual([
      200,
      { status: 200, body: { id, status: 'won' } },
      { status: 200, body: { id: refundReference, status: 'failed' } },
    ]);
    expect(fake.disputes().find((d) => d.id === id)).toMatchObject({ paymentReference: reference, status: 'won' });
    await fake.notifications.idle();
    const last = endpoint.received.at(-1)!;
    expect(await parse(last, { ...STRIPE_FAKE_CREDENTIALS, webhook_secret: secret })).toMatchObject({
      ok: true,
      notifications: [{ change: { object: 'refund', status: 'failed', refundReference } }],
    });
    expect(await parse(last)).toMatchObject({ ok: false });
  });

  it('answers 404 for what it does not hold and 400 for what cannot be done', async () => {
    const authorized = await payment(1000, false);
    expect(await post('/_fake/disputes', { reference: 'pi_nothing' })).toMatchObject({ status: 404 });
    expect(await post('/_fake/disputes', { reference: authorized })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/only a captured one can be disputed/) } },
    });
    expect(await post('/_fake/disputes/dp_nothing/close', { outcome: 'won' })).toMatchObject({ status: 404 });
    expect(await post('/_fake/disputes/dp_nothing/close', { outcome: 'maybe' })).toMatchObject({ status: 400 });
    expect(await post('/_fake/refunds/re_nothing/fail')).toMatchObject({ status: 404 });
    expect(await post('/_fake/webhooks', {})).toMatchObject({ status: 400, body: { error: { message: 'url is required' } } });
  });
});
