/**
 * Adyen's notifications and disputes: the Adyen fake notifies a local endpoint the way Adyen does (HMAC-signed
 * NotificationRequest, checked against Webhooks v1), and the connector's parseWebhook reads what it sent through the
 * SDK's HmacValidator; disputes are answered through the Disputes API v30 (checked against its contract).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { adyenFollowUp } from '../../shared/providers/adyen/follow-up.ts';
import { type AdyenCredentials, adyenProvider } from '../../shared/providers/adyen/index.ts';
import { notificationOf } from '../../shared/providers/adyen/changes.ts';
import type { Connector, DisputeDesk, InboundNotification, ProviderChange } from '../../shared/providers/types.ts';
import { listen } from '../../infra/local/fakes/listen.ts';
import {
  ADYEN_FAKE_CREDENTIALS,
  ADYEN_FAKE_HMAC_KEY,
  ADYEN_FAKE_MERCHANT_ACCOUNT,
  type AdyenFakeServer,
  startAdyenFake,
} from '../../infra/local/fakes/adyen/server.ts';
import { hmacSignature, type NotificationItem } from '../../infra/local/fakes/adyen/notifications.ts';

interface Received {
  headers: Record<string, string | undefined>;
  body: string;
}

/** A merchant's webhook endpoint: keeps what it receives, answering `status` (200 unless a test changes it). */
async function startEndpoint() {
  const received: Received[] = [];
  const endpoint = { received, status: 200, url: '', server: undefined as unknown as Server };
  endpoint.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(endpoint.status, { 'content-type': 'text/plain' });
      res.end('[accepted]');
    });
  });
  endpoint.url = `http://127.0.0.1:${await listen(endpoint.server)}/api/connectors/con_adyen_test/webhooks`;
  return endpoint;
}

let fake: AdyenFakeServer;
let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
let adyen: Connector;
let desk: DisputeDesk;
const originalBaseUrl = config.ADYEN_CHECKOUT_BASE_URL;

beforeAll(async () => {
  [fake, endpoint] = await Promise.all([startAdyenFake({ port: 0 }), startEndpoint()]);
  config.ADYEN_CHECKOUT_BASE_URL = fake.url;
  adyen = adyenProvider.connect(ADYEN_FAKE_CREDENTIALS, { id: 'con_adyen_test', mode: 'test' });
  desk = adyenFollowUp.disputeDesk(ADYEN_FAKE_CREDENTIALS, { id: 'con_adyen_test', mode: 'test' });
  const registered = await fetch(`${fake.url}/_fake/webhooks`, { method: 'POST', body: JSON.stringify({ url: endpoint.url }) });
  expect(registered.status).toBe(200);
});

afterEach(() => {
  fake.clearFaults();
  endpoint.status = 200;
  expect(fake.contractViolations).toEqual([]);
});

afterAll(async () => {
  await fake.close();
  endpoint.server.closeAllConnections();
  await new Promise((resolve) => endpoint.server.close(resolve));
  if (originalBaseUrl === undefined) delete config.ADYEN_CHECKOUT_BASE_URL;
  else config.ADYEN_CHECKOUT_BASE_URL = originalBaseUrl;
});

const refundId = () => `ref_${randomUUID().replaceAll('-', '').slice(0, 26)}`;

/** A captured (or only authorized) payment at the fake: its pspReference. */
async function payment({ amount = 5000, capture = true } = {}) {
  const paymentId = `pay_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const authorized = await adyen.authorize({
    paymentId,
    idempotencyKey: `${paymentId}_1`,
    amount,
    currency: 'EUR',
    card: { number: '4242424242424242', exp_month: 3, exp_year: 2030, cvc: '737' },
    attempt: 1,
  });
  if (authorized.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(authorized)}`);
  if (capture) await adyen.capture(authorized.reference, amount, 'EUR', `${paymentId}_capture`);
  return { paymentId, reference: authorized.reference };
}

const parse = (request: Received, credentials: AdyenCredentials = ADYEN_FAKE_CREDENTIALS) => adyenFollowUp.parseWebhook(credentials, request);

/** Every notification the endpoint received about the payment `reference`, as parseWebhook reads it. */
async function notificationsAbout(reference: string): Promise<InboundNotification[]> {
  await fake.notifications.idle();
  const read: InboundNotification[] = [];
  for (const request of endpoint.received) {
    const verified = await parse(request);
    if (!verified.ok) throw new Error(`a notification of the fake did not verify: ${verified.reason}`);
    read.push(...verified.notifications.filter((n) => n.change?.paymentReference === reference));
  }
  return read;
}
const changesAbout = async (reference: string): Promise<ProviderChange[]> => (await notificationsAbout(reference)).map((n) => n.change!);

const control = (path: string, body: unknown = {}) => fetch(`${fake.url}/_fake${path}`, { method: 'POST', body: JSON.stringify(body) });

describe('Adyen modifications, notified', () => {
  it('a capture is pending until its CAPTURE notification, which parseWebhook reads as succeeded and acknowledges [accepted]', async () => {
    // Prepare
    const { paymentId, reference } = await payment({ capture: false });
    // Act
    const captured = await adyen.capture(reference, 5000, 'EUR', `${paymentId}_capture`);
    await fake.notifications.idle();
    const sent = fake.notifications.all().find((n) => n.type === 'CAPTURE' && n.body.includes(reference))!;
    const verified = await parse({ headers: sent.headers, body: sent.body });
    // Assess
    expect(captured).toEqual({ ok: true, reference: expect.any(String), pending: true });
    expect(sent).toMatchObject({ url: endpoint.url, status: 200, eventId: `CAPTURE:${captured.ok && captured.reference}:true` });
    expect(verified).toEqual({
      ok: true,
      acknowledgement: { contentType: 'text/plain', body: '[accepted]' },
      notifications: [
        {
          eventId: sent.eventId,
          occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
          change: { object: 'capture', status: 'succeeded', paymentReference: reference },
        },
      ],
    });
  });

  it('a void is notified as a succeeded cancellation', async () => {
    // Prepare
    const { paymentId, reference } = await payment({ capture: false });
    // Act
    const voided = await adyen.void(reference, `${paymentId}_void`);
    // Assess
    expect(voided).toMatchObject({ ok: true, pending: true });
    expect(await changesAbout(reference)).toEqual([{ object: 'cancellation', status: 'succeeded', paymentReference: reference }]);
  });

  it('a refund is pending, tagged with our refund id, then succeeded by its REFUND notification', async () => {
    // Prepare
    const { reference } = await payment();
    const id = refundId();
    // Act
    const refunded = await adyen.refund(reference, 1200, 'EUR', id);
    // Assess
    expect(refunded).toEqual({ ok: true, reference: expect.stringMatching(/^[A-Z0-9]{16}$/), pending: true });
    const refundReference = refunded.ok ? refunded.reference : '';
    expect(await changesAbout(reference)).toContainEqual({
      object: 'refund',
      status: 'succeeded',
      paymentReference: reference,
      refundReference,
      refundId: id,
      amount: 1200,
      currency: 'EUR',
    });
  });

  it('a refund that fails at settlement is notified REFUND_FAILED: failed, with Adyen’s reason, and its amount refundable again', async () => {
    // Prepare
    const { reference } = await payment({ amount: 1000 });
    const id = refundId();
    const refunded = await adyen.refund(reference, 1000, 'EUR', id);
    const refundReference = refunded.ok ? refunded.reference : '';
    // Act
    const failed = await control(`/refunds/${refundReference}/fail`);
    // Assess
    expect(failed.status).toBe(200);
    expect(await changesAbout(reference)).toContainEqual({
      object: 'refund',
      status: 'failed',
      paymentReference: reference,
      refundReference,
      refundId: id,
      amount: 1000,
      currency: 'EUR',
      reason: 'Refund Failed',
    });
    expect(fake.holds().find((h) => h.reference === reference)).toMatchObject({ captured: 1000, refunded: 0 });
    expect((await control(`/refunds/${refundReference}/fail`)).status).toBe(400);
  });

  it('a refund beyond what remains is refused with Adyen’s message, and nothing is notified', async () => {
    // Prepare
    const { reference } = await payment({ amount: 1000 });
    // Act
    const refused = await adyen.refund(reference, 1001, 'EUR', refundId());
    // Assess
    expect(refused).toEqual({ ok: false, reason: 'refused', message: 'Invalid amount specified' });
    expect((await changesAbout(reference)).filter((c) => c.object === 'refund')).toEqual([]);
  });

  it('changesOf answers undefined: Checkout has no read of modifications', async () => {
    // Prepare
    const { reference } = await payment();
    // Act
    const changes = await adyen.changesOf(reference);
    // Assess
    expect(changes).toBeUndefined();
  });
});

describe('Adyen disputes', () => {
  it('a dispute opened over HTTP is notified NOTIFICATION_OF_CHARGEBACK: needs_response, its reason, amount and defense deadline', async () => {
    // Prepare
    const { reference } = await payment({ amount: 2500 });
    // Act
    const opened = await control('/disputes', { reference, reason: 'fraudulent' });
    const { id } = (await opened.json()) as { id: string };
    // Assess
    expect(opened.status).toBe(200);
    expect(await changesAbout(reference)).toContainEqual({
      object: 'dispute',
      status: 'needs_response',
      paymentReference: reference,
      disputeReference: id,
      amount: 2500,
      currency: 'EUR',
      reason: 'fraudulent',
      evidenceDueBy: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(fake.disputes().find((d) => d.id === id)).toMatchObject({ paymentReference: reference, status: 'Unresponded', accepted: false });
  });

  it('evidence reaches Adyen as a PDF defense document, and the dispute is defended with an applicable reason', async () => {
    // Prepare
    const { reference } = await payment();
    const id = fake.openDispute(reference, 'product_not_received');
    const evidence = {
      product_description: 'A hand-thrown stoneware mug, glazed blue',
      shipping_tracking_number: '1Z999AA10123456784',
      uncategorized_text: 'Delivered to the front desk and signed for by the customer. '.repeat(6).trim(),
    };
    // Act
    const submitted = await desk.submitEvidence(id, evidence, `dis_${id}_evidence`);
    // Assess
    expect(submitted).toEqual({ ok: true, reference: id });
    expect(fake.disputes().find((d) => d.id === id)).toMatchObject({ status: 'Responded', evidence });
    const calls = fake.requests.filter((r) => (r.body as { disputePspReference?: string } | undefined)?.disputePspReference === id);
    expect(calls.map((r) => r.path.split('/').pop())).toEqual(['retrieveApplicableDefenseReasons', 'supplyDefenseDocument', 'defendDispute']);
    expect(calls[1]!.body).toMatchObject({ defenseDocuments: [{ defenseDocumentTypeCode: 'DefenseMaterial', contentType: 'application/pdf' }] });
    expect(calls[2]!.body).toMatchObject({ defenseReasonCode: 'SupplyDefenseMaterial' });
    expect(calls.slice(1).every((r) => typeof r.idempotencyKey === 'string' && r.idempotencyKey.length <= 64)).toBe(true);
  });

  it.each([
    ['won', 'CHARGEBACK_REVERSED'],
    ['lost', 'SECOND_CHARGEBACK'],
  ] as const)('a dispute closed %s is notified %s', async (outcome, eventCode) => {
    // Prepare
    const { reference } = await payment();
    const id = fake.openDispute(reference);
    // Act
    const closed = await control(`/disputes/${id}/close`, { outcome });
    // Assess
    expect(closed.status).toBe(200);
    const read = await notificationsAbout(reference);
    expect(read.at(-1)).toMatchObject({
      eventId: `${eventCode}:${id}:true`,
      change: { object: 'dispute', status: outcome, disputeReference: id, reason: 'general' },
    });
    expect((await control(`/disputes/${id}/close`, { outcome })).status).toBe(400);
  });

  it('accepting a dispute marks it accepted at Adyen, notified CHARGEBACK (Accepted); a second accept or evidence is refused', async () => {
    // Prepare
    const { reference } = await payment();
    const id = fake.openDispute(reference);
    // Act
    const accepted = await desk.accept(id, `dis_${id}_accept`);
    const again = await desk.accept(id, `dis_${id}_accept2`);
    const evidence = await desk.submitEvidence(id, { uncategorized_text: 'too late' }, `dis_${id}_evidence`);
    // Assess
    expect(accepted).toEqual({ ok: true, reference: id });
    expect(again).toEqual({ ok: false, reason: 'refused', message: 'Dispute is closed (Accepted)' });
    expect(evidence).toEqual({ ok: false, reason: 'refused', message: 'Dispute is closed (Accepted)' });
    expect(fake.disputes().find((d) => d.id === id)).toMatchObject({ accepted: true, status: 'Accepted' });
    expect((await changesAbout(reference)).at(-1)).toMatchObject({ object: 'dispute', status: 'accepted', disputeReference: id });
  });

  it('the same accept under the same key has one effect; an Adyen it cannot reach is provider_down', async () => {
    // Prepare
    const { reference } = await payment();
    const id = fake.openDispute(reference);
    fake.inject('dispute_accept', { kind: 'status', status: 503 });
    // Act
    const down = await desk.accept(id, `dis_${id}_accept`);
    const first = await desk.accept(id, `dis_${id}_accept`);
    const replayed = await desk.accept(id, `dis_${id}_accept`);
    // Assess
    expect(down).toEqual({ ok: false, reason: 'provider_down' });
    expect([first, replayed]).toEqual([
      { ok: true, reference: id },
      { ok: true, reference: id },
    ]);
    expect((await changesAbout(reference)).filter((c) => c.object === 'dispute' && c.status === 'accepted')).toHaveLength(1);
  });

  it('an unknown dispute is refused', async () => {
    // Act
    const result = await desk.accept('NOSUCHDISPUTE001', 'dis_unknown_accept');
    // Assess
    expect(result).toEqual({ ok: false, reason: 'refused', message: 'Could not find dispute' });
  });
});

describe('Adyen webhook verification', () => {
  /** A notification the fake made about a fresh captured payment: the exact request, and the payment. */
  async function sentCapture() {
    const { reference } = await payment();
    await fake.notifications.idle();
    const sent = fake.notifications.all().find((n) => n.type === 'CAPTURE' && n.body.includes(reference))!;
    return { reference, request: { headers: sent.headers, body: sent.body } };
  }
  const withItem = (body: string, change: (item: Record<string, unknown>) => void) => {
    const request = JSON.parse(body) as { notificationItems: { NotificationRequestItem: Record<string, unknown> }[] };
    change(request.notificationItems[0]!.NotificationRequestItem);
    return JSON.stringify(request);
  };

  it('a forged amount, a wrong key, a missing signature, a connector without hmac_key or a body that is not a notification: not ok, and why', async () => {
    // Prepare
    const { request } = await sentCapture();
    const forged = withItem(request.body, (item) => ((item.amount as { value: number }).value = 1));
    const unsigned = withItem(request.body, (item) => delete (item.additionalData as Record<string, string>).hmacSignature);
    const { hmac_key: _, ...withoutKey } = ADYEN_FAKE_CREDENTIALS;
    // Act
    const results = await Promise.all([
      parse({ ...request, body: forged }),
      parse(request, { ...ADYEN_FAKE_CREDENTIALS, hmac_key: 'ABCDEF0123456789ABCDEF0123456789' }),
      parse({ ...request, body: unsigned }),
      parse(request, withoutKey),
      parse({ ...request, body: '{"notificationItems": "no"}' }),
    ]);
    // Assess
    expect(results.map((r) => (r.ok ? 'ok' : r.reason.split(':')[0]))).toEqual([
      'forged',
      'forged',
      'unsigned',
      'the connector has no hmac_key',
      'the body is not an Adyen NotificationRequest',
    ]);
  });

  it('one forged item makes the whole request unverified', async () => {
    // Prepare
    const first = await sentCapture();
    const second = await sentCapture();
    const items = [first, second].map(({ request }) => (JSON.parse(request.body) as { notificationItems: unknown[] }).notificationItems[0]);
    const genuine = JSON.stringify({ live: 'false', notificationItems: items });
    const oneForged = withItem(genuine, (item) => (item.success = 'false'));
    // Act
    const [both, forged] = await Promise.all([parse({ headers: {}, body: genuine }), parse({ headers: {}, body: oneForged })]);
    // Assess
    expect(both.ok && both.notifications.map((n) => n.change?.paymentReference)).toEqual([first.reference, second.reference]);
    expect(forged).toMatchObject({ ok: false, reason: expect.stringMatching(/^forged/) });
  });

  it('the same notification sent again has the same event id; an event we do not follow or another merchant account’s is null', async () => {
    // Prepare
    const { reference, request } = await sentCapture();
    const item = (JSON.parse(request.body) as { notificationItems: { NotificationRequestItem: NotificationItem }[] }).notificationItems[0]!
      .NotificationRequestItem;
    const signed = (changed: Partial<NotificationItem>) => {
      const next = { ...item, ...changed };
      next.additionalData = { hmacSignature: hmacSignature(next, ADYEN_FAKE_HMAC_KEY) };
      return JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: next }] });
    };
    // Act
    const [once, twice, authorisation, elsewhere] = await Promise.all([
      parse(request),
      parse(request),
      parse({ headers: {}, body: signed({ eventCode: 'AUTHORISATION', pspReference: reference, originalReference: undefined }) }),
      parse({ headers: {}, body: signed({ merchantAccountCode: 'AnotherMerchantECOM' }) }),
    ]);
    // Assess
    expect(once.ok && twice.ok && once.notifications[0]!.eventId === twice.notifications[0]!.eventId).toBe(true);
    expect(authorisation.ok && authorisation.notifications[0]!.change).toBeNull();
    expect(elsewhere.ok && elsewhere.notifications[0]!.change).toBeNull();
  });
});

describe('the Adyen fake’s notification sender', () => {
  it('holds notifications, flushes them, and keeps one answered non-2xx for the next flush', async () => {
    // Prepare
    fake.notifications.hold(true);
    const { reference } = await payment();
    const made = () => fake.notifications.all().filter((n) => n.body.includes(reference));
    const receivedBefore = endpoint.received.length;
    // Act
    endpoint.status = 500;
    await fake.notifications.flush();
    const refused = made().map((n) => n.status);
    endpoint.status = 200;
    fake.notifications.hold(false);
    await fake.notifications.flush();
    // Assess
    expect(refused).toEqual([500]);
    expect(made().map((n) => n.status)).toEqual([200]);
    expect(endpoint.received.length - receivedBefore).toBe(2);
  });

  it('with notificationDelayMs a notification is sent that long after the change', async () => {
    // Prepare
    const delayed = await startAdyenFake({ port: 0, notificationDelayMs: 200 });
    delayed.notifications.register(endpoint.url);
    config.ADYEN_CHECKOUT_BASE_URL = delayed.url;
    const connector = adyenProvider.connect(ADYEN_FAKE_CREDENTIALS, { id: 'con_adyen_delayed', mode: 'test' });
    config.ADYEN_CHECKOUT_BASE_URL = fake.url;
    try {
      const authorized = await connector.authorize({
        paymentId: 'pay_delayed',
        idempotencyKey: 'pay_delayed_1',
        amount: 100,
        currency: 'EUR',
        card: { number: '4242424242424242', exp_month: 3, exp_year: 2030, cvc: '737' },
        attempt: 1,
      });
      const reference = authorized.outcome === 'approved' ? authorized.reference : '';
      // Act
      const started = performance.now();
      await connector.capture(reference, 100, 'EUR', 'pay_delayed_capture');
      const pending = delayed.notifications.all().map((n) => n.status);
      await delayed.notifications.idle();
      // Assess
      expect(pending).toEqual([undefined]);
      expect(delayed.notifications.all().map((n) => n.status)).toEqual([200]);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    } finally {
      await delayed.close();
    }
  });

  it('answers the controls’ mistakes with 400 or 404', async () => {
    // Act
    const statuses = await Promise.all([
      control('/webhooks', {}),
      control('/disputes', { reference: 'NOSUCHPAYMENT001' }),
      control('/disputes/NOSUCHDISPUTE001/close', { outcome: 'won' }),
      control('/disputes/NOSUCHDISPUTE001/close', { outcome: 'maybe' }),
      control('/nothing'),
    ]).then((responses) => responses.map((r) => r.status));
    // Assess
    expect(statuses).toEqual([400, 400, 400, 400, 404]);
  });
});

describe('Adyen notification items in our words', () => {
  const item = (changed: Partial<Parameters<typeof notificationOf>[0]>) =>
    notificationOf(
      {
        eventCode: 'CAPTURE',
        pspReference: 'MODIFICATION0001',
        originalReference: 'PAYMENT000000001',
        merchantAccountCode: ADYEN_FAKE_MERCHANT_ACCOUNT,
        merchantReference: 'ref_01jabcdefghjkmnpqrstvwxyz0',
        eventDate: '2026-01-02T03:04:05+01:00',
        success: 'true',
        amount: { value: 1000, currency: 'EUR' },
        ...changed,
      },
      ADYEN_FAKE_MERCHANT_ACCOUNT,
      '2026-01-01T00:00:00.000Z',
    );

  it('maps failures, refund reversals and the dispute outcomes Adyen names', () => {
    // Act
    const changes = {
      captureRefused: item({ success: 'false', reason: 'Insufficient balance' }).change,
      captureFailed: item({ eventCode: 'CAPTURE_FAILED', reason: 'Capture Failed' }).change,
      refundRefused: item({ eventCode: 'REFUND', success: 'false', reason: 'Not captured' }).change,
      reversed: item({ eventCode: 'REFUNDED_REVERSED' }).change,
      information: item({ eventCode: 'INFORMATION_SUPPLIED', additionalData: { chargebackReasonCode: ' 4837' } }).change,
      prearbitrationWon: item({ eventCode: 'PREARBITRATION_WON' }).change,
      prearbitrationLost: item({ eventCode: 'PREARBITRATION_LOST', reason: 'Fraudulent Processing of Transactions' }).change,
      clp: item({ eventCode: 'REFUND', amount: { value: 150000, currency: 'CLP' } }).change,
    };
    // Assess
    expect(item({}).occurredAt).toBe('2026-01-02T02:04:05.000Z');
    expect(changes.captureRefused).toEqual({
      object: 'capture',
      status: 'failed',
      paymentReference: 'PAYMENT000000001',
      reason: 'Insufficient balance',
    });
    expect(changes.captureFailed).toMatchObject({ object: 'capture', status: 'failed', reason: 'Capture Failed' });
    expect(changes.refundRefused).toMatchObject({ object: 'refund', status: 'failed', refundReference: 'MODIFICATION0001', reason: 'Not captured' });
    expect(changes.reversed).toMatchObject({ object: 'refund', status: 'failed', refundId: 'ref_01jabcdefghjkmnpqrstvwxyz0' });
    expect(changes.information).toMatchObject({ object: 'dispute', status: 'under_review', reason: 'fraudulent', evidenceDueBy: null });
    expect(changes.prearbitrationWon).toMatchObject({ object: 'dispute', status: 'won', reason: 'general' });
    expect(changes.prearbitrationLost).toMatchObject({ object: 'dispute', status: 'lost', reason: 'fraudulent' });
    expect(changes.clp).toMatchObject({ amount: 1500, currency: 'CLP' });
  });

  it('names no refund id when the reference was our key’s digest (a key longer than 64 characters)', () => {
    // Act
    const change = item({ eventCode: 'REFUND', merchantReference: 'a'.repeat(64) }).change;
    // Assess
    expect(change).toMatchObject({ object: 'refund', status: 'succeeded' });
    expect(change).not.toHaveProperty('refundId');
  });
});
