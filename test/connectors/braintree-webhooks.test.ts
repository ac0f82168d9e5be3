import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import braintree from 'braintree';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { braintreeFollowUp } from '../../shared/providers/braintree/follow-up.ts';
import { type BraintreeCredentials, braintreeProvider } from '../../shared/providers/braintree/index.ts';
import type { Connector, DisputeDesk, InboundWebhook, WebhookVerification } from '../../shared/providers/types.ts';
import { listen } from '../../infra/local/fakes/listen.ts';
import { type BraintreeFake, FAKE_BRAINTREE_CREDENTIALS, startBraintreeFake } from '../../infra/local/fakes/braintree/server.ts';

// Notifications made by the fake (signed the Braintree way, form-encoded) reach a local endpoint over HTTP and are read
// by the real parseWebhook (the braintree SDK's webhookNotification.parse); changesOf and the dispute actions run the
// real connector against the fake, which validates every GraphQL document against Braintree's published schema.

/** The merchant's webhook endpoint: records every POST as parseWebhook receives it, answers `status`. */
interface Endpoint {
  url: string;
  received: InboundWebhook[];
  status: number;
  server: Server;
}

let fake: BraintreeFake;
let endpoint: Endpoint;
let connector: Connector;
let desk: DisputeDesk;
const originalGatewayUrl = config.BRAINTREE_GATEWAY_URL;

beforeAll(async () => {
  fake = await startBraintreeFake({ port: 0 });
  config.BRAINTREE_GATEWAY_URL = fake.url;
  connector = braintreeProvider.connect(FAKE_BRAINTREE_CREDENTIALS, { id: `con_${randomUUID()}`, mode: 'test' });
  desk = braintreeFollowUp.disputeDesk(FAKE_BRAINTREE_CREDENTIALS, { id: `con_${randomUUID()}`, mode: 'test' });
  endpoint = await startEndpoint();
});
beforeEach(() => {
  endpoint.received.length = 0;
  endpoint.status = 200;
  fake.notifications.register(endpoint.url);
});
afterEach(async () => {
  await fake.notifications.idle();
  fake.notifications.hold(false);
  fake.clearFaults();
  fake.gateway.settleCaptures = true;
  fake.gateway.settleRefunds = true;
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => endpoint.server.close(resolve));
  if (originalGatewayUrl === undefined) delete config.BRAINTREE_GATEWAY_URL;
  else config.BRAINTREE_GATEWAY_URL = originalGatewayUrl;
});

async function startEndpoint(): Promise<Endpoint> {
  const state = { received: [] as InboundWebhook[], status: 200 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      state.received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(state.status, { 'content-type': 'text/plain' }).end('OK');
    });
  });
  const port = await listen(server, 0);
  return Object.assign(state, { url: `http://127.0.0.1:${port}/api/connectors/con_test/webhooks`, server }) as Endpoint;
}

const credentials = FAKE_BRAINTREE_CREDENTIALS;
const parse = (request: InboundWebhook, keys: BraintreeCredentials = credentials) => braintreeFollowUp.parseWebhook(keys, request);

/** Every notification the endpoint received since the test began, once the fake has heard every answer. */
async function delivered(): Promise<InboundWebhook[]> {
  await fake.notifications.idle();
  return [...endpoint.received];
}

/** The last notification delivered, parsed: it must verify. */
async function lastParsed(): Promise<Extract<WebhookVerification, { ok: true }>> {
  const received = await delivered();
  const last = received.at(-1);
  if (!last) throw new Error('no notification was delivered');
  const parsed = await parse(last);
  if (!parsed.ok) throw new Error(`the notification did not verify: ${parsed.reason}`);
  return parsed;
}

const change = async () => (await lastParsed()).notifications[0]?.change;

/** A captured payment (settled at once unless the test said otherwise). */
async function captured(amount = 5000, using = connector): Promise<string> {
  const paymentId = `pay_${randomUUID()}`;
  const result = await using.authorize({
    paymentId,
    idempotencyKey: `${paymentId}_1`,
    amount,
    currency: 'USD',
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' },
    attempt: 1,
  });
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  const capture = await using.capture(result.reference, amount, 'USD', `${paymentId}_capture`);
  if (!capture.ok) throw new Error(`expected a capture, got ${JSON.stringify(capture)}`);
  return result.reference;
}

async function refunded(reference: string, amount: number): Promise<{ refundId: string; refundReference: string }> {
  const refundId = `ref_${randomUUID()}`;
  const result = await connector.refund(reference, amount, 'USD', refundId);
  if (!result.ok) throw new Error(`expected a refund, got ${JSON.stringify(result)}`);
  return { refundId, refundReference: result.reference };
}

const postControl = (path: string, body: unknown = {}) =>
  fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('Braintree webhooks: captures', () => {
  it('a settled capture is notified as transaction_settled, form-encoded, and read as a capture that succeeded', async () => {
    // Given a payment captured (the fake settles it at once)
    const reference = await captured();
    // When its notification is read
    const parsed = await lastParsed();
    // Then it is Braintree's form post, verified, with the payload digest as event id and the acknowledgement Braintree takes
    const [request] = await delivered();
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const payload = new URLSearchParams(request!.body).get('bt_payload')!;
    expect(parsed.notifications).toEqual([
      {
        eventId: createHash('sha256').update(payload).digest('hex'),
        occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
        change: { object: 'capture', status: 'succeeded', paymentReference: reference },
      },
    ]);
    expect(parsed.acknowledgement).toEqual({ contentType: 'text/plain', body: 'OK' });
    expect(fake.notifications.all().at(-1)).toMatchObject({ type: 'transaction_settled', status: 200, url: endpoint.url });
  });

  it('a capture the processor declines at settlement is read as a capture that failed, here and in changesOf', async () => {
    // Given a capture Braintree has not settled yet
    fake.gateway.settleCaptures = false;
    const reference = await captured();
    expect(await connector.changesOf(reference)).toEqual([{ object: 'capture', status: 'succeeded', paymentReference: reference }]);
    // When the processor declines to settle it
    fake.gateway.declineSettlement(reference);
    // Then the notification and Braintree's transaction both say it failed, with the processor's words
    const failed = { object: 'capture', status: 'failed', paymentReference: reference, reason: '4001 Settlement Declined' };
    expect(await change()).toEqual(failed);
    expect(await connector.changesOf(reference)).toEqual([failed]);
  });

  it('changesOf reports a voided authorization as a cancellation (Braintree notifies no void)', async () => {
    // Given an authorization voided
    const paymentId = `pay_${randomUUID()}`;
    const auth = await connector.authorize({
      paymentId,
      idempotencyKey: `${paymentId}_1`,
      amount: 1000,
      currency: 'USD',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' },
      attempt: 1,
    });
    if (auth.outcome !== 'approved') throw new Error('expected an approval');
    await connector.void(auth.reference, `${paymentId}_void`);
    // When Braintree is asked about it
    const changes = await connector.changesOf(auth.reference);
    // Then it is cancelled, and no notification was made for it
    expect(changes).toEqual([{ object: 'cancellation', status: 'succeeded', paymentReference: auth.reference }]);
    expect(await delivered()).toEqual([]);
  });
  it('changesOf answers undefined when Braintree does not answer, and nothing for a transaction it does not have', async () => {
    // Given a captured payment, and Braintree unavailable for the next read
    const reference = await captured();
    fake.inject('status', { kind: 'status', status: 503 });
    // When it is asked, then asked about an id it never issued
    const unavailable = await connector.changesOf(reference);
    const unknown = await connector.changesOf(Buffer.from('transaction_none').toString('base64url'));
    // Then
    expect(unavailable).toBeUndefined();
    expect(unknown).toEqual([]);
  });
});

describe('Braintree webhooks: refunds', () => {
  it('a refund is accepted at once, pending in changesOf until it settles, then notified and read as succeeded', async () => {
    // Given a settled capture and a refund Braintree has not settled yet
    const reference = await captured(8000);
    fake.gateway.settleRefunds = false;
    const { refundId, refundReference } = await refunded(reference, 3000);
    const refund = { object: 'refund', paymentReference: reference, refundReference, refundId, amount: 3000, currency: 'USD' };
    expect(await connector.changesOf(reference)).toContainEqual({ ...refund, status: 'pending' });
    // When the settlement batch runs for it
    fake.gateway.settle(refundReference);
    // Then the credit's transaction_settled names our refund, and changesOf agrees
    expect(fake.notifications.all().at(-1)).toMatchObject({ type: 'transaction_settled' });
    expect(await change()).toEqual({ ...refund, status: 'succeeded' });
    expect(await connector.changesOf(reference)).toContainEqual({ ...refund, status: 'succeeded' });
  });

  it('a refund declined at settlement (POST /_fake/refunds/:id/fail) is read as failed, with the processor reason', async () => {
    // Given a refund Braintree accepted
    const reference = await captured(8000);
    fake.gateway.settleRefunds = false;
    const { refundId, refundReference } = await refunded(reference, 8000);
    // When the fake is told, over HTTP, that it fails at settlement
    const response = await postControl(`/_fake/refunds/${encodeURIComponent(refundReference)}/fail`);
    // Then the credit's transaction_settlement_declined and changesOf both report the refund failed
    expect(response.status).toBe(200);
    const failed = {
      object: 'refund',
      status: 'failed',
      paymentReference: reference,
      refundReference,
      refundId,
      amount: 8000,
      currency: 'USD',
      reason: '4001 Settlement Declined',
    };
    expect(fake.notifications.all().at(-1)).toMatchObject({ type: 'transaction_settlement_declined' });
    expect(await change()).toEqual(failed);
    expect(await connector.changesOf(reference)).toContainEqual(failed);
  });

  it('a refund Braintree will not make (more than is left) is refused with its message', async () => {
    // Given 20.00 captured and 15.00 refunded
    const reference = await captured(2000);
    await refunded(reference, 1500);
    // When 10.00 more is refunded
    const result = await connector.refund(reference, 1000, 'USD', `ref_${randomUUID()}`);
    // Then Braintree refuses it, in its words
    expect(result).toEqual({ ok: false, reason: 'refused', message: 'Refund amount is too large.' });
  });
});

describe('Braintree webhooks: disputes', () => {
  it('a dispute opened is notified and read as needs_response; evidence reaches Braintree, then the dispute is won', async () => {
    // Given a captured payment and a dispute opened on it
    const reference = await captured(4200);
    const disputeId = fake.openDispute(reference, 'product_not_received');
    const opened = await change();
    expect(opened).toEqual({
      object: 'dispute',
      status: 'needs_response',
      paymentReference: reference,
      disputeReference: disputeId,
      amount: 4200,
      currency: 'USD',
      reason: 'product_not_received',
      evidenceDueBy: expect.stringMatching(/T23:59:59\.000Z$/),
    });
    expect(await connector.changesOf(reference)).toContainEqual(opened);
    // When the merchant's evidence is submitted
    const key = `dis_${randomUUID()}_evidence`;
    const evidence = { product_description: 'A blue teapot', customer_email_address: 'jo@example.com', shipping_tracking_number: '1Z999' };
    const submitted = await desk.submitEvidence(disputeId, evidence, key);
    // Then each field is a text evidence labelled with its name, the dispute is finalized and under review
    expect(submitted).toEqual({ ok: true, reference: disputeId });
    expect(fake.disputes().find((d) => d.id === disputeId)).toMatchObject({ status: 'DISPUTED', evidence, accepted: false });
    expect(fake.requests.filter((r) => r.field === 'createDisputeTextEvidence' && r.idempotencyKey === key)).toHaveLength(3);
    expect(await change()).toMatchObject({ object: 'dispute', status: 'under_review', disputeReference: disputeId });
    // …and submitting again (an answer lost) adds nothing
    expect(await desk.submitEvidence(disputeId, evidence, key)).toEqual({ ok: true, reference: disputeId });
    expect(fake.requests.filter((r) => r.field === 'createDisputeTextEvidence' && r.idempotencyKey === key)).toHaveLength(3);
    // When the processor decides for the merchant
    fake.closeDispute(disputeId, 'won');
    // Then dispute_won and changesOf say won
    expect(await change()).toMatchObject({ object: 'dispute', status: 'won', disputeReference: disputeId });
    expect(await connector.changesOf(reference)).toContainEqual({ ...opened, status: 'won' });
  });

  it('opened and lost through the control endpoints over HTTP', async () => {
    // Given a captured payment
    const reference = await captured(3000);
    // When a dispute is opened and lost through /_fake/disputes
    const opened = await postControl('/_fake/disputes', { reference, reason: 'fraudulent' });
    const { id } = (await opened.json()) as { id: string };
    expect(await change()).toMatchObject({ status: 'needs_response', reason: 'fraudulent', disputeReference: id });
    const closed = await postControl(`/_fake/disputes/${encodeURIComponent(id)}/close`, { outcome: 'lost' });
    // Then both answer 200 and dispute_lost is read as lost
    expect([opened.status, closed.status]).toEqual([200, 200]);
    expect(fake.notifications.all().at(-1)).toMatchObject({ type: 'dispute_lost' });
    expect(await change()).toEqual({
      object: 'dispute',
      status: 'lost',
      paymentReference: reference,
      disputeReference: id,
      amount: 3000,
      currency: 'USD',
      reason: 'fraudulent',
      evidenceDueBy: expect.any(String),
    });
  });

  it('accepting a dispute marks it accepted (again: still ok); evidence after that is refused', async () => {
    // Given an open dispute
    const reference = await captured(1500);
    const disputeId = fake.openDispute(reference);
    // When the merchant accepts it, twice (an answer lost)
    const accepted = await desk.accept(disputeId, `${disputeId}_accept`);
    const again = await desk.accept(disputeId, `${disputeId}_accept`);
    const evidence = await desk.submitEvidence(disputeId, { uncategorized_text: 'too late' }, `${disputeId}_evidence`);
    // Then Braintree has it accepted, notified once, and takes no evidence
    expect([accepted, again]).toEqual([
      { ok: true, reference: disputeId },
      { ok: true, reference: disputeId },
    ]);
    expect(fake.disputes().find((d) => d.id === disputeId)).toMatchObject({ status: 'ACCEPTED', accepted: true, evidence: {} });
    expect(await change()).toMatchObject({ object: 'dispute', status: 'accepted', reason: 'general', disputeReference: disputeId });
    expect(fake.notifications.all().filter((n) => n.type === 'dispute_accepted')).toHaveLength(1);
    expect(evidence).toEqual({ ok: false, reason: 'refused', message: 'Dispute is accepted: only an open dispute takes evidence.' });
  });

  it('refuses to open a dispute on a payment that is not captured', async () => {
    // When a dispute is opened on an unknown reference over HTTP
    const response = await postControl('/_fake/disputes', { reference: 'dHJhbnNhY3Rpb25fbm9uZQ' });
    // Then the fake answers 400 with why
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'transaction dHJhbnNhY3Rpb25fbm9uZQ is not captured' });
  });
});

describe('Braintree webhooks: verification', () => {
  const tampered = (request: InboundWebhook, edit: (form: URLSearchParams) => void): InboundWebhook => {
    const form = new URLSearchParams(request.body);
    edit(form);
    return { headers: request.headers, body: form.toString() };
  };

  it('refuses a forged payload, other API keys, and a post without bt_signature or bt_payload', async () => {
    // Given a genuine notification
    await captured();
    const [genuine] = await delivered();
    const otherXml = Buffer.from('<notification><kind>dispute_won</kind></notification>').toString('base64');
    // When it is altered, read with other keys, or stripped
    const results = await Promise.all([
      parse(tampered(genuine!, (form) => form.set('bt_payload', `${otherXml}\n`))),
      parse(genuine!, { ...credentials, private_key: 'another_private_key' }),
      parse(genuine!, { ...credentials, public_key: 'another_public_key' }),
      parse(tampered(genuine!, (form) => form.delete('bt_signature'))),
      parse({ headers: {}, body: '' }),
    ]);
    // Then none verifies, each saying why
    expect(results).toEqual([
      { ok: false, reason: expect.stringMatching(/^bt_signature does not verify .*signature does not match payload/) },
      { ok: false, reason: expect.stringMatching(/^bt_signature does not verify .*signature does not match payload/) },
      { ok: false, reason: expect.stringMatching(/^bt_signature does not verify .*no matching public key/) },
      { ok: false, reason: 'not signed: bt_signature and bt_payload are required (form-encoded)' },
      { ok: false, reason: 'not signed: bt_signature and bt_payload are required (form-encoded)' },
    ]);
  });

  it("reads the SDK's own sample notifications alike: legacy ids become GraphQL ids, kinds we do not follow give no change", async () => {
    // Given notifications signed by Braintree's SDK with the fake's keys (no global-id in these samples)
    const gateway = new braintree.BraintreeGateway({
      environment: braintree.Environment.Sandbox,
      merchantId: credentials.merchant_id,
      publicKey: credentials.public_key,
      privateKey: credentials.private_key,
    });
    const form = async (kind: Parameters<typeof gateway.webhookTesting.sampleNotification>[0], id: string) => {
      const sample = await gateway.webhookTesting.sampleNotification(kind, id);
      return { headers: {}, body: new URLSearchParams({ bt_signature: sample.bt_signature, bt_payload: sample.bt_payload }).toString() };
    };
    // When they are read
    const [settled, opened, other] = await Promise.all([
      parse(await form('transaction_settled', 'abc123')),
      parse(await form('dispute_opened', 'xyz789')),
      parse(await form('subscription_canceled', 'sub1')),
    ]);
    // Then
    const id = (text: string) => Buffer.from(text).toString('base64').replace(/=+$/, '');
    expect(settled).toMatchObject({
      ok: true,
      notifications: [{ change: { object: 'capture', status: 'succeeded', paymentReference: id('transaction_abc123') } }],
    });
    expect(opened).toMatchObject({
      ok: true,
      notifications: [
        {
          change: {
            object: 'dispute',
            status: 'needs_response',
            paymentReference: id('transaction_xyz789'),
            disputeReference: id('dispute_xyz789'),
            amount: 25000,
            currency: 'USD',
            reason: 'fraudulent',
            evidenceDueBy: '2014-03-21T23:59:59.000Z',
          },
        },
      ],
    });
    expect(other).toMatchObject({ ok: true, notifications: [{ change: null }] });
  });

  it('the same notification delivered twice has one event id', async () => {
    // Given a notification
    await captured();
    const [first] = await delivered();
    // When it is read twice
    const [a, b] = await Promise.all([parse(first!), parse(first!)]);
    // Then both carry the same event id
    expect(a.ok && b.ok && a.notifications[0]!.eventId === b.notifications[0]!.eventId).toBe(true);
  });
});

describe('Braintree fake: delivery', () => {
  it('holds notifications when told, then flush sends them, oldest first; a failed delivery is kept for the next flush', async () => {
    // Given notifications held, and an endpoint answering 500
    fake.notifications.hold(true);
    endpoint.status = 500;
    const before = fake.notifications.all().length;
    const reference = await captured();
    fake.openDispute(reference);
    const made = fake.notifications.all().slice(before);
    expect(made.map((n) => [n.type, n.status])).toEqual([
      ['transaction_settled', undefined],
      ['dispute_opened', undefined],
    ]);
    expect(await delivered()).toEqual([]);
    // When flushed against the failing endpoint, then again once it answers
    await fake.notifications.flush();
    const failedStatuses = made.map((n) => fake.notifications.all().find((m) => m.eventId === n.eventId)?.status);
    endpoint.status = 200;
    await fake.notifications.flush();
    // Then both were tried, kept, and delivered in order on the second flush, with the exact bodies recorded
    expect(failedStatuses).toEqual([500, 500]);
    const received = await delivered();
    expect(received.map((r) => r.body)).toEqual([made[0]!.body, made[1]!.body, made[0]!.body, made[1]!.body]);
    expect(
      fake.notifications
        .all()
        .slice(before)
        .map((n) => n.status),
    ).toEqual([200, 200]);
  });

  it('registers the endpoint over HTTP (POST /_fake/webhooks) and sends notificationDelayMs after the change', async () => {
    // Given a fake that waits before sending, its endpoint registered over HTTP
    const delayed = await startBraintreeFake({ port: 0, notificationDelayMs: 30 });
    try {
      const registered = await fetch(`${delayed.url}/_fake/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: endpoint.url }),
      });
      expect(registered.status).toBe(200);
      config.BRAINTREE_GATEWAY_URL = delayed.url;
      const there = braintreeProvider.connect(credentials, { id: `con_${randomUUID()}`, mode: 'test' });
      // When a payment is captured there
      await captured(5000, there);
      // Then nothing has arrived yet, and the notification arrives once the delay has passed
      expect(endpoint.received).toEqual([]);
      await delayed.notifications.idle();
      expect(endpoint.received).toHaveLength(1);
      expect(delayed.notifications.all()).toMatchObject([{ type: 'transaction_settled', status: 200 }]);
    } finally {
      config.BRAINTREE_GATEWAY_URL = fake.url;
      await delayed.close();
    }
  });
});
