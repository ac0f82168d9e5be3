import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as getBalance } from '../../functions/balance/get.ts';
import { handler as createConnector } from '../../functions/connectors/create.ts';
import { handler as getDispute } from '../../functions/disputes/get.ts';
import { handler as submitEvidence } from '../../functions/disputes/evidence.ts';
import { handler as listDisputes } from '../../functions/disputes/list.ts';
import { handler as revenue } from '../../functions/analytics/revenue.ts';
import { handler as timeline } from '../../functions/payments/timeline.ts';
import { handler as getRefund } from '../../functions/refunds/get.ts';
import { handler as listEvents } from '../../functions/webhooks/events.ts';
import { buildOpenApi } from '../../infra/openapi/document.ts';
import { config } from '../../shared/config.ts';
import { eventPayload } from '../../shared/model/events.ts';
import { listEvents as storedEvents } from '../../shared/store/events.ts';
import { getRefund as storedRefund, getStoredPayment } from '../../shared/store/payments.ts';
import type { ProviderName } from '../../shared/providers/types.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import type { FakeServer } from '../../infra/local/fakes/types.ts';
import { deliver, startInboundGateway } from '../support/inbound.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { payloadChecker } from '../support/openapi.ts';
import { freshCard, paymentBody, payments } from '../support/payments.ts';

/**
 * Provider notifications in: each provider's fake signs and posts its own notifications (Stripe events, Adyen
 * NotificationRequests, Braintree bt_signature/bt_payload) to the connector's webhook_url, here a local gateway in
 * front of the handler. Refunds, captures, cancellations and disputes follow them; balance, revenue, outbound events
 * and the payment's timeline follow too.
 */
let fakes: ProviderFakes;
let gateway: Awaited<ReturnType<typeof startInboundGateway>>;
beforeAll(async () => {
  [fakes, gateway] = await Promise.all([startProviderFakes(), startInboundGateway()]);
  Object.assign(config, fakes.env);
});
afterAll(async () => {
  await Promise.all([fakes.close(), gateway.close()]);
});

const PROVIDERS = ['stripe', 'adyen', 'braintree'] as const satisfies readonly ProviderName[];
const fakeOf = (provider: ProviderName): FakeServer => fakes[provider];

const get = (handler: Parameters<typeof invokeHttp>[0], key: string, path: string, query?: Record<string, string>) =>
  invokeHttp(handler, apiEvent({ method: 'GET', path, headers: bearer(key), query }));

/** A merchant with one account at `provider` (its fake), whose notifications reach the merchant's webhook_url. */
async function connected(provider: ProviderName) {
  const { apiKey, merchantId } = await newMerchant();
  const res = await invokeHttp(
    createConnector,
    apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body: { provider, credentials: fakes.credentials[provider] } }),
  );
  expect(res.status).toBe(200);
  fakeOf(provider).notifications.register(gateway.urlFor(res.body.id));
  fakeOf(provider).notifications.hold(false);
  return { apiKey, merchantId, connectorId: res.body.id as string, fake: fakeOf(provider) };
}

/** A captured payment of `amount` at the merchant's account, with its notifications handled. */
async function captured(account: Awaited<ReturnType<typeof connected>>, provider: ProviderName, amount = 10_000) {
  const paid = await payments.create(account.apiKey, paymentBody({ amount, routing: provider }, freshCard()));
  expect(paid.status).toBe(200);
  expect((await payments.capture(account.apiKey, paid.body.id)).status).toBe(200);
  await account.fake.notifications.idle();
  return paid.body.id as string;
}

const providerReferenceOf = async (merchantId: string, paymentId: string) =>
  (await getStoredPayment(testOwner(merchantId), paymentId))!.provider_reference!;
const balanceOf = async (key: string) => (await get(getBalance, key, '/api/balance')).body;
const totalFunds = (balance: { available: { amount: number }[]; pending: { amount: number }[] }) =>
  [...balance.available, ...balance.pending].reduce((n, f) => n + f.amount, 0);
const eventTypes = async (key: string) =>
  (await get(listEvents, key, '/api/webhooks/events', { limit: '100' })).body.data.map((e: { event: string }) => e.event);
/** Every event the merchant was sent is a payload its `webhooks` entry in the OpenAPI document describes. */
async function expectDocumentedPayloads(merchantId: string) {
  const check = payloadChecker(await buildOpenApi());
  const { data } = await storedEvents(testOwner(merchantId), {}, { limit: 100 });
  for (const event of data) check(eventPayload(event));
}
const timelineOf = async (key: string, paymentId: string) => (await get(timeline, key, `/api/payments/${paymentId}/timeline`)).body.data;

/** The notification with its amount changed after signing: Stripe's JSON, Adyen's item, Braintree's base64 XML payload. */
function tampered(provider: ProviderName, body: string): string {
  if (provider !== 'braintree') return body.replace(/"(amount|value)":\s*10000/g, '"$1":1');
  const form = new URLSearchParams(body);
  const xml = Buffer.from(form.get('bt_payload')!, 'base64').toString('utf8');
  form.set('bt_payload', Buffer.from(xml.replace(/100\.00/g, '1.00')).toString('base64'));
  return form.toString();
}

/** The notification without its signature: Stripe's header, Adyen's hmacSignature, Braintree's bt_signature field. */
const unsignedHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'stripe-signature'));
function unsignedBody(provider: ProviderName, body: string): string {
  if (provider === 'adyen') return body.replace(/"hmacSignature":\s*"[^"]*",?/g, '');
  if (provider !== 'braintree') return body;
  const form = new URLSearchParams(body);
  form.delete('bt_signature');
  return form.toString();
}

describe.each(PROVIDERS)('%s notifications', (provider) => {
  it('a refund follows its notifications: pending until the provider confirms, then failed at settlement, the money given back', async () => {
    // Prepare
    const account = await connected(provider);
    const paymentId = await captured(account, provider);
    // Act
    const refunded = await payments.refund(account.apiKey, paymentId, { amount: 4_000 });
    await account.fake.notifications.idle();
    const refundId = refunded.body.refund_id as string;
    const afterConfirm = await get(getRefund, account.apiKey, `/api/refunds/${refundId}`);
    const balanceAfterRefund = totalFunds(await balanceOf(account.apiKey));
    account.fake.failRefund((await storedRefund(paymentId, refundId))!.provider_reference!);
    await account.fake.notifications.idle();
    // Assess
    expect(refunded.status).toBe(200);
    expect(afterConfirm.body.status).toBe('succeeded');
    expect(balanceAfterRefund).toBe(6_000);
    const failed = await get(getRefund, account.apiKey, `/api/refunds/${refundId}`);
    expect(failed.body).toMatchObject({ status: 'failed', failure_reason: expect.any(String) });
    expect((await payments.get(account.apiKey, paymentId)).body).toMatchObject({ status: 'captured', amount_refunded: 0 });
    expect(totalFunds(await balanceOf(account.apiKey))).toBe(10_000);
    const days = (await get(revenue, account.apiKey, '/api/analytics/revenue', { period: '24h', currency: 'USD' })).body;
    expect(days.total).toBe(10_000);
    expect(await eventTypes(account.apiKey)).toEqual(expect.arrayContaining(['payment.captured', 'payment.refunded', 'refund.failed']));
    const changes = (await timelineOf(account.apiKey, paymentId)).map((e: { change: string; source: string }) => `${e.change} ${e.source}`);
    expect(changes).toEqual(expect.arrayContaining(['payment.captured api', 'refund.created api', 'refund.failed provider_webhook']));
    await expectDocumentedPayloads(account.merchantId);
  });

  it('a dispute opened by the provider debits the balance; evidence reaches the provider; won, it gives the money back', async () => {
    // Prepare
    const account = await connected(provider);
    const paymentId = await captured(account, provider);
    const reference = await providerReferenceOf(account.merchantId, paymentId);
    // Act
    const disputeReference = account.fake.openDispute(reference, 'fraudulent');
    await account.fake.notifications.idle();
    const opened = (await get(listDisputes, account.apiKey, '/api/disputes')).body.data;
    const debited = totalFunds(await balanceOf(account.apiKey));
    const answered = await invokeHttp(
      submitEvidence,
      apiEvent({
        method: 'POST',
        path: `/api/disputes/${opened[0]?.id}/evidence`,
        headers: bearer(account.apiKey),
        body: { product_description: 'Annual plan, delivered by e-mail', uncategorized_text: 'Used after the charge' },
      }),
    );
    await account.fake.notifications.idle();
    account.fake.closeDispute(disputeReference, 'won');
    await account.fake.notifications.idle();
    // Assess
    expect(opened).toEqual([
      expect.objectContaining({
        object: 'dispute',
        payment_id: paymentId,
        amount: 10_000,
        currency: 'USD',
        reason: 'fraudulent',
        status: 'needs_response',
        metadata: {},
      }),
    ]);
    expect(debited).toBe(0);
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('under_review');
    expect(account.fake.disputes()[0]?.evidence).toMatchObject({ product_description: 'Annual plan, delivered by e-mail' });
    expect((await get(getDispute, account.apiKey, `/api/disputes/${opened[0].id}`)).body.status).toBe('won');
    expect(totalFunds(await balanceOf(account.apiKey))).toBe(10_000);
    expect(await eventTypes(account.apiKey)).toEqual(expect.arrayContaining(['dispute.created', 'dispute.updated', 'dispute.closed']));
    const disputeChanges = (await timelineOf(account.apiKey, paymentId)).filter((e: { object: string }) => e.object === 'dispute');
    expect(disputeChanges.map((e: { change: string }) => e.change)).toEqual(['dispute.needs_response', 'dispute.under_review', 'dispute.won']);
    await expectDocumentedPayloads(account.merchantId);
  });

  it('a lost dispute keeps the amount debited', async () => {
    // Prepare
    const account = await connected(provider);
    const paymentId = await captured(account, provider, 3_000);
    const disputeReference = account.fake.openDispute(await providerReferenceOf(account.merchantId, paymentId));
    await account.fake.notifications.idle();
    // Act
    account.fake.closeDispute(disputeReference, 'lost');
    await account.fake.notifications.idle();
    // Assess
    const [dispute] = (await get(listDisputes, account.apiKey, '/api/disputes')).body.data;
    expect(dispute.status).toBe('lost');
    expect(totalFunds(await balanceOf(account.apiKey))).toBe(0);
    const days = (await get(revenue, account.apiKey, '/api/analytics/revenue', { period: '24h', currency: 'USD' })).body;
    expect(days.total).toBe(0);
  });

  it('a forged notification answers 400 and changes nothing', async () => {
    // Prepare
    const account = await connected(provider);
    const paymentId = await captured(account, provider);
    account.fake.notifications.hold(true);
    account.fake.openDispute(await providerReferenceOf(account.merchantId, paymentId));
    const genuine = account.fake.notifications.all().at(-1)!;
    account.fake.notifications.hold(false);
    // Act
    const forged = await deliver(genuine.url, genuine.headers, tampered(provider, genuine.body));
    const unsigned = await deliver(genuine.url, unsignedHeaders(genuine.headers), unsignedBody(provider, genuine.body));
    // Assess
    expect(forged.status, forged.rawBody).toBe(400);
    expect(forged.body.error?.code, forged.rawBody).toBe('webhook_verification_failed');
    expect(unsigned.status).toBe(400);
    expect((await get(listDisputes, account.apiKey, '/api/disputes')).body.data).toEqual([]);
    expect(totalFunds(await balanceOf(account.apiKey))).toBe(10_000);
  });
});

describe('Adyen confirms by notification only', () => {
  it('a capture and a refund stay awaiting, pending, until the notifications arrive', async () => {
    // Prepare
    const account = await connected('adyen');
    account.fake.notifications.hold(true);
    const paid = await payments.create(account.apiKey, paymentBody({ amount: 5_000, routing: 'adyen' }, freshCard()));
    await payments.capture(account.apiKey, paid.body.id);
    // Act
    const refunded = await payments.refund(account.apiKey, paid.body.id, { amount: 2_000 });
    const pending = await get(getRefund, account.apiKey, `/api/refunds/${refunded.body.refund_id}`);
    const beforeNotification = totalFunds(await balanceOf(account.apiKey));
    await account.fake.notifications.flush();
    // Assess
    expect(refunded.status).toBe(200);
    expect(pending.body.status).toBe('pending');
    expect(beforeNotification).toBe(5_000);
    expect((await get(getRefund, account.apiKey, `/api/refunds/${refunded.body.refund_id}`)).body.status).toBe('succeeded');
    expect(totalFunds(await balanceOf(account.apiKey))).toBe(3_000);
    const sources = (await timelineOf(account.apiKey, paid.body.id)).map((e: { change: string; source: string }) => `${e.change} ${e.source}`);
    expect(sources).toEqual(expect.arrayContaining(['capture.confirmed provider_webhook', 'refund.succeeded provider_webhook']));
  });
});

describe('cancellations and failed captures', () => {
  it.each(PROVIDERS)('%s: a void is final once the provider says so; nothing is left awaiting', async (provider) => {
    // Prepare
    const account = await connected(provider);
    const paid = await payments.create(account.apiKey, paymentBody({ amount: 2_500, routing: provider }, freshCard()));
    // Act
    const voided = await payments.void(account.apiKey, paid.body.id);
    await account.fake.notifications.idle();
    // Assess: Adyen confirms the cancellation by notification; Stripe's and Braintree's voids are final at once
    expect(voided.body.status).toBe('voided');
    expect((await getStoredPayment(testOwner(account.merchantId), paid.body.id))!.op).toBeUndefined();
    const changes = (await timelineOf(account.apiKey, paid.body.id)).map((e: { change: string; source: string }) => `${e.change} ${e.source}`);
    expect(changes).toContain('payment.voided api');
    if (provider === 'adyen') expect(changes).toContain('cancellation.confirmed provider_webhook');
  });

  it('braintree: a capture the processor declines to settle makes the payment authorized again, its money taken back', async () => {
    // Prepare
    const account = await connected('braintree');
    fakes.braintree.gateway.settleCaptures = false;
    try {
      const paid = await payments.create(account.apiKey, paymentBody({ amount: 7_000, routing: 'braintree' }, freshCard()));
      await payments.capture(account.apiKey, paid.body.id);
      const beforeDecline = totalFunds(await balanceOf(account.apiKey));
      // Act
      fakes.braintree.gateway.declineSettlement(await providerReferenceOf(account.merchantId, paid.body.id));
      await account.fake.notifications.idle();
      // Assess
      expect(beforeDecline).toBe(7_000);
      expect((await payments.get(account.apiKey, paid.body.id)).body).toMatchObject({ status: 'succeeded', amount_captured: 0 });
      expect(totalFunds(await balanceOf(account.apiKey))).toBe(0);
      const days = (await get(revenue, account.apiKey, '/api/analytics/revenue', { period: '24h', currency: 'USD' })).body;
      expect(days.total).toBe(0);
      expect(await eventTypes(account.apiKey)).toContain('payment.capture_failed');
      await expectDocumentedPayloads(account.merchantId);
    } finally {
      fakes.braintree.gateway.settleCaptures = true;
    }
  });
});
