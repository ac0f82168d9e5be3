import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// What `npm start` runs, here in the test process: the provider fakes (on free ports, their base URLs set before any
// handler reads its environment), and the stream and queue pollers on this file's own table and queues.
const { own, fakes } = await vi.hoisted(async () => {
  const { providerFakeSettings, runProviderFakes } = await import('../../infra/local/provider-fakes.ts');
  const started = await runProviderFakes(
    providerFakeSettings({ PROVIDER_FAKES: 'on', STRIPE_FAKE_PORT: '0', ADYEN_FAKE_PORT: '0', BRAINTREE_FAKE_PORT: '0' }),
  );
  Object.assign(process.env, started.env);
  return { own: await (await import('../support/own-table.ts')).useOwnTable('connectors-e2e', { queues: true }), fakes: started };
});
import type { Gateway } from '../../infra/local/gateway.ts';
import { createDemoMerchant } from '../../shared/domain/demo.ts';
import { FAKE_CREDENTIALS } from '../../infra/local/fakes/index.ts';
import { STRIPE_FAKE_LIVE_KEY } from '../../infra/local/fakes/stripe/server.ts';
import type { Json } from '../support/lambda.ts';
import { startOwnWorkers } from '../support/own-table.ts';
import { printedFromNow } from '../support/printed.ts';
import { startTestGateway } from '../support/runtime.ts';

/**
 * Connector accounts through the local runtime as a developer meets them: it runs the three provider fakes (on free
 * ports here), prints a curl per fake that connects it, and payments then go through the real connectors to the
 * fakes, over HTTP like curl. The gateway, the pollers and the fakes run in this process as `npm start` runs them in
 * its own; the fakes are driven only over HTTP: failover by the test card that fails softly (4000000000000119: Stripe
 * and Braintree always, Adyen at a payment's first attempt only).
 */
const SECRETS = [
  FAKE_CREDENTIALS.stripe.secret_key,
  STRIPE_FAKE_LIVE_KEY,
  FAKE_CREDENTIALS.adyen.api_key,
  FAKE_CREDENTIALS.braintree.public_key,
  FAKE_CREDENTIALS.braintree.private_key,
];
const PROVIDERS = [
  { provider: 'stripe', title: 'Stripe', baseUrlVar: 'STRIPE_API_BASE_URL', defaultPort: 12111 },
  { provider: 'adyen', title: 'Adyen', baseUrlVar: 'ADYEN_CHECKOUT_BASE_URL', defaultPort: 12112 },
  { provider: 'braintree', title: 'Braintree', baseUrlVar: 'BRAINTREE_GATEWAY_URL', defaultPort: 12113 },
] as const;
type Provider = (typeof PROVIDERS)[number]['provider'];

const card = (number: string) => ({ type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc: '737' } });

/** One printed curl: `curl -s <url> -H "Authorization: Bearer <key>" -H 'Content-Type: application/json' \ -d '<json>'`. */
const PRINTED_CURL = /^ {2}curl -s (\S+) -H "Authorization: Bearer (\S+)" -H 'Content-Type: application\/json' \\\n {4}-d '([^']*)'$/gm;

describe('npm start with the provider fakes', () => {
  /** the gateway's URL, the merchant's test key, and what `npm start` prints: the fakes' block of its banner, then logs */
  let runtime: { url: string; apiKey: string; output(): string };
  let gateway: Gateway;
  let workers: { stop(): Promise<void> };
  const printed = printedFromNow();
  const email = `connectors-${randomUUID()}@example.test`;
  /** every answer's body, as received */
  const answers: string[] = [];
  const connectors = {} as Record<Provider, { id: string; label: string }>;
  /** the demo merchant's live key, made signed in */
  let liveKey = '';

  /** A request to the runtime, as curl would send it. */
  async function call(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${runtime.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    answers.push(text);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: JSON.parse(text) as any };
  }

  beforeAll(async () => {
    const [started, running, merchant] = await Promise.all([
      startTestGateway(),
      startOwnWorkers(own),
      createDemoMerchant(email, { payments: false }),
    ]);
    [gateway, workers] = [started, running];
    const banner = `${fakes.banner({ url: gateway.url, apiKey: merchant.apiKey }).join('\n')}\n`;
    runtime = { url: gateway.url, apiKey: merchant.apiKey, output: () => banner + printed.output() };
  });
  afterAll(async () => {
    printed.stop();
    await workers?.stop();
    await gateway?.close();
    await fakes.close();
  });

  it('prints each fake on the port it was given and a curl per fake that connects it as a test account', async () => {
    // Assess the banner: every fake on a free port (the test asked for 0), never on the fixed default
    const banner = runtime.output();
    for (const { title, baseUrlVar, defaultPort } of PROVIDERS) {
      const line = new RegExp(`^ {2}${title} +http://127\\.0\\.0\\.1:(\\d+) +${baseUrlVar}$`, 'm').exec(banner);
      expect(line, `${title} line in:\n${banner}`).not.toBeNull();
      expect(Number(line![1])).not.toBe(defaultPort);
    }
    const curls = [...banner.matchAll(PRINTED_CURL)];
    expect(curls).toHaveLength(3);

    // Act: send each printed command as it stands (URL, key, body)
    for (const [, url, key, json] of curls) {
      expect(url).toBe(`${runtime.url}/api/connectors`);
      expect(key).toBe(runtime.apiKey);
      const sent = JSON.parse(json!) as { provider: Provider; label: string; credentials: unknown };
      const res = await call('POST', '/api/connectors', key!, sent);
      // Assess: verified at its fake (one read-only call), answered without the credentials
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(sent.credentials).toEqual(FAKE_CREDENTIALS[sent.provider]);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^con_/),
        object: 'connector',
        provider: sent.provider,
        mode: 'test',
        livemode: false,
        status: 'active',
        label: sent.label,
        credentials_hint: expect.stringMatching(/^….{4}$/),
        webhook_url: `${runtime.url}/api/connectors/${res.body.id}/webhooks`,
      });
      connectors[sent.provider] = { id: res.body.id, label: sent.label };
    }
    expect(Object.keys(connectors).sort()).toEqual(['adyen', 'braintree', 'stripe']);
    const listed = await call('GET', '/api/connectors', runtime.apiKey);
    expect(listed.body.data.map((c: { id: string }) => c.id).sort()).toEqual(
      Object.values(connectors)
        .map((c) => c.id)
        .sort(),
    );
  });

  it('pays through a connected account, names it in the reason, and captures and refunds there', async () => {
    const { stripe } = connectors;
    const paid = await call(
      'POST',
      '/api/payments/create',
      runtime.apiKey,
      { amount: 4999, currency: 'eur', routing: 'stripe', payment_method: card('4242424242424242') },
      { 'Idempotency-Key': 'e2e-order-1' },
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', provider: 'stripe', connector_id: stripe.id });
    expect(paid.body.routing_decision.reason).toContain(`sent through stripe via ${stripe.id} (${stripe.label})`);

    const captured = await call('POST', `/api/payments/${paid.body.id}/capture`, runtime.apiKey, { amount: 4000 });
    const refunded = await call('POST', `/api/payments/${paid.body.id}/refund`, runtime.apiKey, { amount: 1500 });
    expect(captured.body).toMatchObject({ status: 'captured', amount_captured: 4000, connector_id: stripe.id });
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_refunded: 1500, refund_id: expect.stringMatching(/^ref_/) });
  });

  it('fails over between the accounts on soft failures, naming each account it tried, then captures and refunds at the one that took it', async () => {
    // Prepare: lowest cost orders a large payment braintree → stripe → adyen; the card fails softly at the first two
    const { stripe, adyen, braintree } = connectors;
    // Act
    const paid = await call('POST', '/api/payments/create', runtime.apiKey, {
      amount: 100000,
      currency: 'eur',
      routing: 'lowest_cost',
      payment_method: card('4000000000000119'),
    });
    // Assess
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', provider: 'adyen', connector_id: adyen.id });
    const reason: string = paid.body.routing_decision.reason;
    expect(reason).toContain(`braintree via ${braintree.id} (${braintree.label}) answered processing_error`);
    expect(reason).toContain(`stripe via ${stripe.id} (${stripe.label}) answered processing_error`);
    expect(reason).toContain(`failed over to adyen via ${adyen.id} (${adyen.label})`);
    expect(paid.body.routing_decision.alternatives_considered).toEqual(['braintree', 'stripe']);

    const captured = await call('POST', `/api/payments/${paid.body.id}/capture`, runtime.apiKey, {});
    const refunded = await call('POST', `/api/payments/${paid.body.id}/refund`, runtime.apiKey, { amount: 25000 });
    expect(captured.body).toMatchObject({ status: 'captured', amount_captured: 100000, connector_id: adyen.id });
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_refunded: 25000 });
  });

  it('voids an authorization at the account that holds it', async () => {
    const { braintree } = connectors;
    const paid = await call('POST', '/api/payments/create', runtime.apiKey, {
      amount: 2500,
      currency: 'usd',
      routing: 'braintree',
      payment_method: card('5555555555554444'),
    });
    const voided = await call('POST', `/api/payments/${paid.body.id}/void`, runtime.apiKey);
    expect(paid.body).toMatchObject({ status: 'succeeded', provider: 'braintree', connector_id: braintree.id });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    expect(voided.body).toMatchObject({ status: 'voided', connector_id: braintree.id });
  });

  it('charges a card saved with a publishable key by its pm_ at a connected account, again there, and at another account', async () => {
    // Prepare: the checkout page's publishable key saves the card (the hosted card fields' request)
    const { stripe, adyen } = connectors;
    const publishable = await call('POST', '/api/api-keys', runtime.apiKey, { name: 'Checkout page', type: 'publishable' });
    const saved = await call('POST', '/api/payment_methods', publishable.body.key, card('4242424242424242'));
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const charge = (routing: Provider) =>
      call('POST', '/api/payments/create', runtime.apiKey, { amount: 2100, currency: 'eur', routing, payment_method: saved.body.id });
    // Act
    const first = await charge('stripe');
    const read = await call('GET', `/api/payments/${first.body.id}`, runtime.apiKey);
    const again = await charge('stripe');
    const elsewhere = await charge('adyen');
    // Assess
    expect(first.body).toMatchObject({ status: 'succeeded', connector_id: stripe.id, payment_method: { id: saved.body.id } });
    expect(read.body).toEqual(first.body);
    expect(again.body).toMatchObject({ status: 'succeeded', connector_id: stripe.id });
    expect(elsewhere.body).toMatchObject({ status: 'succeeded', connector_id: adyen.id });
  });

  it('answers a live key with no live account 400 connector_missing: test accounts and the sandbox never serve live mode', async () => {
    // Signed in as the merchant (the code from the local outbox): a test key cannot make a live key
    const requested = await fetch(`${runtime.url}/api/auth/request-otp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email }),
    }).then((res) => res.json() as Promise<Json>);
    const outbox = (await fetch(`${runtime.url}/_local/outbox`).then((res) => res.json())) as Json;
    const otp = /(\d{6})/.exec(outbox.data.findLast((m: Json) => m.to === email).text)![1];
    const signedIn = await fetch(`${runtime.url}/api/auth/verify-otp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ request_id: requested.request_id, otp }),
    }).then((res) => res.json() as Promise<Json>);
    const created = await call('POST', '/api/api-keys', signedIn.token, { name: 'Live checkout', mode: 'live' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    liveKey = created.body.key;
    const listed = await call('GET', '/api/connectors', liveKey);
    const paid = await call('POST', '/api/payments/create', liveKey, { amount: 4999, currency: 'eur', payment_method: card('4242424242424242') });
    expect(listed.body.data).toEqual([]);
    expect(paid.status).toBe(400);
    expect(paid.body.error).toMatchObject({ code: 'connector_missing', param: 'routing' });
  });

  it('with a live account connected, a card saved with a pk_live_ key is charged by pm_; a test pm_ is missing in live mode', async () => {
    // Prepare: the Stripe fake connected as a live account; a live publishable key; a card saved in each mode
    const live = await call('POST', '/api/connectors', liveKey, { provider: 'stripe', credentials: { secret_key: STRIPE_FAKE_LIVE_KEY } });
    const publishable = await call('POST', '/api/api-keys', liveKey, { name: 'Live checkout page', type: 'publishable' });
    const testPublishable = await call('POST', '/api/api-keys', runtime.apiKey, { name: 'Test checkout page', type: 'publishable' });
    const saved = await call('POST', '/api/payment_methods', publishable.body.key, card('4242424242424242'));
    const testSaved = await call('POST', '/api/payment_methods', testPublishable.body.key, card('4242424242424242'));
    // Act
    const paid = await call('POST', '/api/payments/create', liveKey, { amount: 2100, currency: 'eur', payment_method: saved.body.id });
    const read = await call('GET', `/api/payments/${paid.body.id}`, liveKey);
    const testCardLive = await call('POST', '/api/payments/create', liveKey, { amount: 2100, currency: 'eur', payment_method: testSaved.body.id });
    // Assess
    expect(live.body).toMatchObject({ mode: 'live', livemode: true });
    expect(publishable.body.key).toMatch(/^pk_live_/);
    expect(saved.body).toMatchObject({ id: expect.stringMatching(/^pm_/), livemode: true });
    expect(paid.body).toMatchObject({ status: 'succeeded', provider: 'stripe', connector_id: live.body.id, livemode: true });
    expect(read.body).toEqual(paid.body);
    expect(testCardLive.status).toBe(400);
    expect(testCardLive.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
  });

  /** A fake's origin, as the banner prints it. */
  const fakeOrigin = (provider: Provider) => {
    const { title, baseUrlVar } = PROVIDERS.find((p) => p.provider === provider)!;
    return new RegExp(`^ {2}${title} +(http://127\\.0\\.0\\.1:\\d+) +${baseUrlVar}$`, 'm').exec(runtime.output())![1]!;
  };

  /** Polls the runtime until `done` holds for the answer (the fakes notify a few seconds after a change). */
  async function until(path: string, done: (body: Json) => boolean, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await call('GET', path, runtime.apiKey);
      if (done(res.body) || Date.now() > deadline) return res.body;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it("sends each fake's notifications to its connector's webhook_url with the printed curl", async () => {
    const printed = [...runtime.output().matchAll(/^ {2}curl -s (http:\/\/127\.0\.0\.1:\d+)\/_fake\/webhooks .* -d '(.*)'$/gm)];
    expect(printed).toHaveLength(3);
    for (const { provider } of PROVIDERS) {
      const origin = fakeOrigin(provider);
      const registered = await fetch(`${origin}/_fake/webhooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${runtime.url}/api/connectors/${connectors[provider].id}/webhooks` }),
      });
      expect(registered.status).toBe(200);
    }
  });

  it('an Adyen refund stays pending until its notification, then succeeded; the timeline says who said so', async () => {
    const paid = await call('POST', '/api/payments/create', runtime.apiKey, {
      amount: 6000,
      currency: 'eur',
      routing: 'adyen',
      payment_method: card('4242424242424242'),
    });
    await call('POST', `/api/payments/${paid.body.id}/capture`, runtime.apiKey, {});
    const refunded = await call('POST', `/api/payments/${paid.body.id}/refund`, runtime.apiKey, { amount: 2000 });
    const pending = await call('GET', `/api/refunds/${refunded.body.refund_id}`, runtime.apiKey);
    const settled = await until(`/api/refunds/${refunded.body.refund_id}`, (refund) => refund.status !== 'pending');
    const timeline = await call('GET', `/api/payments/${paid.body.id}/timeline`, runtime.apiKey);
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    expect(pending.body.status).toBe('pending');
    expect(settled.status).toBe('succeeded');
    const changes = timeline.body.data.map((e: { change: string; source: string }) => `${e.change} ${e.source}`);
    expect(changes).toEqual(
      expect.arrayContaining([
        'payment.succeeded api',
        'payment.captured api',
        'capture.confirmed provider_webhook',
        'refund.succeeded provider_webhook',
      ]),
    );
  });

  it('a test-helper dispute arrives from the Stripe fake, debits the balance, and its evidence reaches the fake', async () => {
    const paid = await call('POST', '/api/payments/create', runtime.apiKey, {
      amount: 3500,
      currency: 'gbp',
      routing: 'stripe',
      payment_method: card('4242424242424242'),
    });
    await call('POST', `/api/payments/${paid.body.id}/capture`, runtime.apiKey, {});
    const funds = (balance: Json) => balance.pending.concat(balance.available).find((f: Json) => f.currency === 'GBP')?.amount ?? 0;
    const before = funds((await call('GET', '/api/balance', runtime.apiKey)).body);
    const asked = await call('POST', `/api/test_helpers/payments/${paid.body.id}/dispute`, runtime.apiKey, { reason: 'product_not_received' });
    const listed = await until('/api/disputes', (list) => list.data.some((d: Json) => d.payment_id === paid.body.id));
    const dispute = listed.data.find((d: Json) => d.payment_id === paid.body.id);
    const after = funds((await call('GET', '/api/balance', runtime.apiKey)).body);
    const answered = await call('POST', `/api/disputes/${dispute.id}/evidence`, runtime.apiKey, { product_description: 'Never shipped: refunded' });
    const atStripe = await fetch(`${fakeOrigin('stripe')}/v1/disputes?limit=100`, {
      headers: { Authorization: `Bearer ${FAKE_CREDENTIALS.stripe.secret_key}` },
    }).then((res) => res.json() as Promise<Json>);
    const evidence = atStripe.data.map((d: Json) => d.evidence.product_description);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(dispute).toMatchObject({ amount: 3500, currency: 'GBP', reason: 'product_not_received', status: 'needs_response' });
    expect(before - after).toBe(3500);
    expect(answered.body.status).toBe('under_review');
    expect(evidence).toContain('Never shipped: refunded');
  });

  it('never answers with a credential, nor logs one after the banner', () => {
    expect(answers.length).toBeGreaterThan(10);
    const logs = printed.output();
    for (const secret of SECRETS) {
      for (const answer of answers) expect(answer).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
