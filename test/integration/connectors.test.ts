import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as create } from '../../functions/connectors/create.ts';
import { handler as remove } from '../../functions/connectors/delete.ts';
import { handler as get } from '../../functions/connectors/get.ts';
import { handler as list } from '../../functions/connectors/list.ts';
import { handler as update } from '../../functions/connectors/update.ts';
import { STRIPE_FAKE_LIVE_KEY } from '../../infra/local/fakes/stripe/server.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';
import { BAD_METADATA, FULL_METADATA } from '../support/metadata.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';
import { config } from '../../shared/config.ts';
import { FEES } from '../../shared/providers/fees.ts';

/**
 * Connector accounts: a merchant's own Stripe, Adyen and Braintree accounts, each here a local fake speaking the
 * provider's wire format, reached by the real connector over HTTP. Payments route over the connected accounts of
 * their mode; in test mode the sandbox stands in for a provider with none; live mode needs a live account.
 */
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());
afterEach(() => {
  for (const fake of [fakes.stripe, fakes.adyen, fakes.braintree]) fake.clearFaults();
});

const call = {
  create: (key: string, body: unknown) => invokeHttp(create, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(key), body })),
  list: (key: string) => invokeHttp(list, apiEvent({ method: 'GET', path: '/api/connectors', headers: bearer(key) })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/connectors/${id}`, headers: bearer(key) })),
  update: (key: string, id: string, body: unknown) =>
    invokeHttp(update, apiEvent({ method: 'PUT', path: `/api/connectors/${id}`, headers: bearer(key), body })),
  remove: (key: string, id: string) => invokeHttp(remove, apiEvent({ method: 'DELETE', path: `/api/connectors/${id}`, headers: bearer(key) })),
};

/** A live key of the merchant, made signed in (a test key cannot make one). */
const liveKeyOf = async (merchantId: string): Promise<string> =>
  (
    await invokeHttp(
      createKey,
      apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
    )
  ).body.key;

describe('connecting an account', () => {
  it.each(['stripe', 'adyen', 'braintree'] as const)('%s: verified at the provider, answered without its credentials', async (provider) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const credentials = fakes.credentials[provider];
    // Act
    const res = await call.create(apiKey, { provider, credentials, label: `${provider} EU` });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^con_/),
      object: 'connector',
      provider,
      mode: 'test',
      label: `${provider} EU`,
      status: 'active',
      credentials_hint: expect.stringMatching(/^….{4}$/),
      fees: FEES[provider],
      webhook_url: expect.stringMatching(new RegExp(`/api/connectors/${res.body.id}/webhooks$`)),
      created_at: expect.any(String),
      livemode: false,
      metadata: {},
    });
    for (const secret of Object.values(credentials).filter((s) => typeof s === 'string' && s.length > 8)) expect(res.rawBody).not.toContain(secret);
    expect(fakes[provider].requests.some((r) => r.operation === 'verify')).toBe(true);
    expect((await call.get(apiKey, res.body.id)).body).toEqual(res.body);
    expect((await call.list(apiKey)).body.data).toEqual([res.body]);
  });

  it('refuses credentials the provider refuses, with its reason, and stores nothing', async () => {
    const { apiKey } = await newMerchant();
    const res = await call.create(apiKey, { provider: 'stripe', credentials: { secret_key: 'sk_test_not_a_real_key_at_all_0000' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'connector_verification_failed', param: 'credentials' });
    expect(res.body.error.message).toMatch(/^Invalid request body: stripe refused the credentials: .+/);
    expect((await call.list(apiKey)).body.data).toEqual([]);
  });

  it.each([
    ['a missing field', { provider: 'stripe', credentials: {} }, 'parameter_missing', 'credentials.secret_key', 'credentials.secret_key is required'],
    [
      'a key of the wrong shape',
      { provider: 'stripe', credentials: { secret_key: 'pk_test_123' } },
      'parameter_invalid',
      'credentials.secret_key',
      'credentials.secret_key must be a Stripe secret or restricted key (sk_test_…, rk_live_…)',
    ],
    [
      'a field of the wrong type',
      { provider: 'adyen', credentials: { api_key: 5, merchant_account: 'M' } },
      'parameter_invalid',
      'credentials.api_key',
      'credentials.api_key must be a string of 20 to 1000 characters',
    ],
    [
      'an unknown field',
      { provider: 'adyen', credentials: { api_key: 'AQE'.padEnd(30, 'x'), merchant_account: 'M', apikey: 'x' } },
      'parameter_unknown',
      'credentials.apikey',
      expect.stringMatching(/^credentials\.apikey is not a field this takes \(it takes api_key, merchant_account, /),
    ],
    [
      'an unknown provider',
      { provider: 'paypal', credentials: {} },
      'parameter_invalid',
      'provider',
      'provider must be one of: stripe, adyen, braintree',
    ],
    ['no credentials', { provider: 'braintree' }, 'parameter_missing', 'credentials', 'credentials is required'],
  ])('answers 400 naming the field and the rule for %s', async (_case, body, code, param, reason) => {
    const { apiKey } = await newMerchant();
    const res = await call.create(apiKey, body);
    expect(res.status).toBe(400);
    const message = typeof reason === 'string' ? `Invalid request body: ${reason}` : expect.stringMatching(/^Invalid request body: /);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param, message });
    if (typeof reason !== 'string') expect(res.body.error.message.replace('Invalid request body: ', '')).toEqual(reason);
  });

  it('refuses a live Stripe key on a test-mode connector', async () => {
    const { apiKey } = await newMerchant();
    const res = await call.create(apiKey, { provider: 'stripe', credentials: { secret_key: STRIPE_FAKE_LIVE_KEY } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('connector_verification_failed');
  });

  it('keeps test and live connectors apart, updates, disables and deletes', async () => {
    // Prepare: a test connector, and a live one made with a live key
    const { apiKey, merchantId } = await newMerchant();
    const liveKey = await liveKeyOf(merchantId);
    const testOne = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    const liveOne = (await call.create(liveKey, { provider: 'stripe', credentials: { secret_key: STRIPE_FAKE_LIVE_KEY } })).body;
    // Assess: each mode sees its own
    expect(liveOne).toMatchObject({ mode: 'live', livemode: true });
    expect((await call.list(apiKey)).body.data.map((c: { id: string }) => c.id)).toEqual([testOne.id]);
    expect((await call.list(liveKey)).body.data.map((c: { id: string }) => c.id)).toEqual([liveOne.id]);
    expect((await call.get(apiKey, liveOne.id)).status).toBe(404);
    expect((await call.remove(liveKey, testOne.id)).status).toBe(404);
    // Act + Assess: label and status change; new credentials are verified first
    expect((await call.update(apiKey, testOne.id, { label: 'Main', status: 'disabled' })).body).toMatchObject({ label: 'Main', status: 'disabled' });
    expect((await call.update(apiKey, testOne.id, { credentials: { secret_key: 'sk_test_wrong_wrong_wrong_0000' } })).status).toBe(400);
    expect((await call.remove(apiKey, testOne.id)).body).toEqual({ id: testOne.id, object: 'connector', deleted: true });
    expect((await call.get(apiKey, testOne.id)).status).toBe(404);
    expect((await call.remove(apiKey, testOne.id)).status).toBe(404);
  });
});

describe('a connector’s metadata', () => {
  it('is kept on create, shown by get and list, replaced whole by an update, kept by one without it, and emptied by {}', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe, metadata: { team: 'eu' } })).body;
    // Assess: create → get and list
    expect(created.metadata).toEqual({ team: 'eu' });
    expect((await call.get(apiKey, created.id)).body.metadata).toEqual({ team: 'eu' });
    expect((await call.list(apiKey)).body.data[0].metadata).toEqual({ team: 'eu' });
    // Act + Assess: an update replaces it, one without it keeps it, {} empties it
    expect((await call.update(apiKey, created.id, { metadata: FULL_METADATA })).body.metadata).toEqual(FULL_METADATA);
    expect((await call.get(apiKey, created.id)).body.metadata).toEqual(FULL_METADATA);
    expect((await call.update(apiKey, created.id, { label: 'Main' })).body).toMatchObject({ label: 'Main', metadata: FULL_METADATA });
    expect((await call.update(apiKey, created.id, { metadata: {} })).body.metadata).toEqual({});
    expect((await call.get(apiKey, created.id)).body).toMatchObject({ label: 'Main', metadata: {} });
  });

  it('does not keep a connector with metadata out of routing', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const connector = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe, metadata: FULL_METADATA })).body;
    // Act
    const paid = await payments.create(apiKey, paymentBody({ routing: 'stripe' }, CARDS.approved));
    // Assess
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', provider: 'stripe', connector_id: connector.id });
  });

  it.each(BAD_METADATA)('answers metadata of %s with 400 parameter_invalid naming metadata, on create and update', async (_case, metadata) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const existing = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe, metadata: { a: 'b' } })).body;
    // Act
    const created = await call.create(apiKey, { provider: 'adyen', credentials: fakes.credentials.adyen, metadata });
    const updated = await call.update(apiKey, existing.id, { metadata });
    // Assess
    for (const res of [created, updated]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid' });
      expect(res.body.error.param.split('.')[0]).toBe('metadata');
    }
    expect((await call.list(apiKey)).body.data.map((c: { id: string; metadata: object }) => [c.id, c.metadata])).toEqual([[existing.id, { a: 'b' }]]);
  });
});

describe('a connector’s fee schedule', () => {
  it('is kept on create, changed by an update, and answered by get and list', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const created = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe, fees: { percent: 1.4, fixed: 25 } }))
      .body;
    const updated = await call.update(apiKey, created.id, { fees: { percent: 2.25, fixed: 0 } });
    // Assess
    expect(created.fees).toEqual({ percent: 1.4, fixed: 25 });
    expect(updated.body.fees).toEqual({ percent: 2.25, fixed: 0 });
    expect((await call.get(apiKey, created.id)).body.fees).toEqual({ percent: 2.25, fixed: 0 });
    expect((await call.list(apiKey)).body.data[0].fees).toEqual({ percent: 2.25, fixed: 0 });
  });

  it.each([
    ['a negative percent', { percent: -1, fixed: 30 }, 'fees.percent'],
    ['a percent over 100', { percent: 101, fixed: 30 }, 'fees.percent'],
    ['a percent with 5 decimals', { percent: 2.12345, fixed: 30 }, 'fees.percent'],
    ['a fractional fixed part', { percent: 2.9, fixed: 30.5 }, 'fees.fixed'],
    ['a missing fixed part', { percent: 2.9 }, 'fees.fixed'],
  ])('answers %s with 400 naming the field, on create and update', async (_case, fees, param) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const existing = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    // Act
    const created = await call.create(apiKey, { provider: 'adyen', credentials: fakes.credentials.adyen, fees });
    const updated = await call.update(apiKey, existing.id, { fees });
    // Assess
    for (const res of [created, updated]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ param, message: expect.stringMatching(/^Invalid request body: fees\./) });
    }
    expect((await call.get(apiKey, existing.id)).body.fees).toEqual(FEES.stripe);
  });

  it('routes lowest_cost by the accounts’ own schedules: a cheap Adyen account beats Braintree on a large payment', async () => {
    // Prepare: at the standard prices Braintree is cheapest for 100000; this Adyen account charges 1% + 0
    const { apiKey } = await newMerchant();
    const adyen = (await call.create(apiKey, { provider: 'adyen', credentials: fakes.credentials.adyen, fees: { percent: 1, fixed: 0 } })).body;
    // Act
    const paid = await payments.create(apiKey, paymentBody({ amount: 100_000, routing: 'lowest_cost' }, CARDS.approved));
    // Assess
    expect(paid.body).toMatchObject({ status: 'succeeded', provider: 'adyen', connector_id: adyen.id });
    expect(paid.body.routing_decision.reason).toContain('adyen 1000 (1% + 0)');
  });
});

describe('payments over connector accounts', () => {
  it('a connected account takes its provider’s payments through the real connector, with our idempotency key', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const connector = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe, label: 'Stripe EU' })).body;
    // Act
    const paid = await payments.create(apiKey, paymentBody({ routing: 'stripe' }, CARDS.approved), { 'Idempotency-Key': `k-${Math.random()}` });
    const captured = await payments.capture(apiKey, paid.body.id, { amount: 2000 });
    const refunded = await payments.refund(apiKey, paid.body.id, { amount: 1000 });
    // Assess
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', provider: 'stripe', connector_id: connector.id });
    expect(paid.body.routing_decision.reason).toContain(`stripe via ${connector.id} (Stripe EU)`);
    expect(captured.body).toMatchObject({ status: 'captured', amount_captured: 2000 });
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_refunded: 1000 });
    const hold = fakes.stripe.holds().find((h) => h.captured === 2000 && h.refunded === 1000);
    expect(hold).toBeDefined();
    const calls = fakes.stripe.requests.filter(
      (r) => ['authorize', 'capture', 'refund'].includes(r.operation) && r.idempotencyKey?.startsWith('att_'),
    );
    expect(calls.length).toBeGreaterThanOrEqual(1);
    const moneyCalls = fakes.stripe.requests.filter((r) => r.method === 'POST' && ['authorize', 'capture', 'refund'].includes(r.operation));
    for (const r of moneyCalls) expect(r.idempotencyKey, r.path).toBeTruthy();
  });

  it('fails over from a connected account that is down to the next, and the reason names both', async () => {
    const { apiKey } = await newMerchant();
    const stripe = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    const adyen = (await call.create(apiKey, { provider: 'adyen', credentials: fakes.credentials.adyen })).body;
    await call.create(apiKey, { provider: 'braintree', credentials: fakes.credentials.braintree });
    fakes.stripe.inject('authorize', { kind: 'status', status: 503 });
    fakes.adyen.inject('authorize', { kind: 'status', status: 503 });
    const res = await payments.create(apiKey, paymentBody({ routing: 'lowest_cost' }, CARDS.approved));
    fakes.stripe.clearFaults();
    fakes.adyen.clearFaults();
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('braintree');
    expect(res.body.routing_decision.reason).toMatch(/failed over to braintree via con_/);
    const reason: string = res.body.routing_decision.reason;
    for (const id of [stripe.id, adyen.id]) expect(reason).toContain(id);
    // Every attempt is on the payment, oldest first, under the key each provider received
    const shown = (await payments.get(apiKey, res.body.id)).body;
    type Attempt = { id: string; provider: 'stripe' | 'adyen' | 'braintree'; status: string; connector_id: string };
    const attempts: Attempt[] = shown.attempts;
    expect(attempts.map((a) => [a.provider, a.status]).sort()).toEqual([
      ['adyen', 'failed'],
      ['braintree', 'authorized'],
      ['stripe', 'failed'],
    ]);
    expect(attempts.at(-1)?.provider).toBe('braintree');
    for (const a of attempts) expect(a).toMatchObject({ id: expect.stringMatching(/^att_/), latency_ms: expect.any(Number) });
    // the authorization is held under the attempt's id, the key Braintree received
    expect(fakes.braintree.requests.some((r) => r.idempotencyKey === attempts.at(-1)?.id)).toBe(true);
    expect(attempts.find((a) => a.provider === 'stripe')?.connector_id).toBe(stripe.id);
  });

  it('fails over between two accounts of one provider, and records both attempts', async () => {
    // Prepare: two Stripe accounts; the newer one (tried first while they score alike) answers 503
    const { apiKey } = await newMerchant();
    const older = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe, label: 'older' })).body;
    const newer = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe, label: 'newer' })).body;
    fakes.stripe.inject('authorize', { kind: 'status', status: 503 }, 1);
    // Act (a payment without a customer: nothing but the authorization is asked of Stripe)
    const paid = await payments.create(apiKey, paymentBody({ routing: 'stripe', customer: undefined }, CARDS.approved));
    // Assess
    expect(paid.status).toBe(200);
    expect(paid.body.attempts.map((a: { connector_id: string; status: string }) => [a.connector_id, a.status])).toEqual([
      [newer.id, 'failed'],
      [older.id, 'authorized'],
    ]);
    expect(paid.body.routing_decision.reason).toContain(
      `stripe via ${newer.id} (newer) answered provider_down, so the payment failed over to stripe via ${older.id} (older)`,
    );
  });

  it('in live mode needs a live account: 400 connector_missing without one, the live account with one', async () => {
    const { merchantId } = await newMerchant();
    const liveKey = await liveKeyOf(merchantId);
    const missing = await payments.create(liveKey, paymentBody({}, CARDS.approved));
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('connector_missing');
    const live = (await call.create(liveKey, { provider: 'stripe', credentials: { secret_key: STRIPE_FAKE_LIVE_KEY } })).body;
    const paid = await payments.create(liveKey, paymentBody({}, CARDS.approved));
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ provider: 'stripe', connector_id: live.id, livemode: true });
  });

  it('a deleted account is gone from the API and routing, but what it authorized is still captured and refunded there', async () => {
    // Prepare: a payment authorized through a Stripe account, then the account is deleted
    const { apiKey } = await newMerchant();
    const stripe = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    const paid = (await payments.create(apiKey, paymentBody({ routing: 'stripe' }, CARDS.approved))).body;
    expect((await call.remove(apiKey, stripe.id)).status).toBe(200);
    // Act
    const captured = await payments.capture(apiKey, paid.id);
    const refunded = await payments.refund(apiKey, paid.id, { amount: 500 });
    const next = await payments.create(apiKey, paymentBody({ routing: 'stripe' }, CARDS.approved));
    // Assess
    expect(captured.body).toMatchObject({ status: 'captured', connector_id: stripe.id });
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_refunded: 500 });
    expect(fakes.stripe.holds().some((h) => h.captured === 2500 && h.refunded === 500)).toBe(true);
    expect(next.body).toMatchObject({ provider: 'stripe', connector_id: null });
    expect((await call.get(apiKey, stripe.id)).status).toBe(404);
    expect((await call.list(apiKey)).body.data).toEqual([]);
    expect((await call.update(apiKey, stripe.id, { label: 'back' })).status).toBe(404);
  });

  it('a disabled account is not routed to; test mode falls back to the sandbox', async () => {
    const { apiKey } = await newMerchant();
    const stripe = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    await call.update(apiKey, stripe.id, { status: 'disabled' });
    const res = await payments.create(apiKey, paymentBody({ routing: 'stripe' }, CARDS.approved));
    expect(res.body).toMatchObject({ provider: 'stripe', connector_id: null });
  });
});

describe('cards on file at a connector account', () => {
  it('a renewal charges the stored card at the account that stored it, merchant-initiated', async () => {
    // Prepare: the customer pays once through a Stripe account (its card is kept there)
    const { apiKey, merchantId, customerId } = await newMerchant();
    const stripe = (await call.create(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    const first = await payments.create(apiKey, paymentBody({ routing: 'stripe' }, CARDS.approved));
    expect(first.body.connector_id).toBe(stripe.id);
    // Act: a merchant-initiated charge of the card on file (what a renewal does)
    const { chargeCardOnFile } = await import('../../shared/domain/card-on-file.ts');
    const charged = await chargeCardOnFile({ id: merchantId, credential: 'api_key', livemode: false }, { customerId, amount: 990, currency: 'USD' });
    // Assess: captured at the same account, off-session on the stored Customer and PaymentMethod
    expect(charged).toMatchObject({ status: 'captured', provider: 'stripe', connector_id: stripe.id, amount_captured: 990 });
    const renewal = fakes.stripe.requests.findLast((r) => r.operation === 'authorize' && r.method === 'POST' && r.path === '/v1/payment_intents');
    expect(renewal?.body).toMatchObject({
      off_session: 'true',
      customer: expect.stringMatching(/^cus_/),
      payment_method: expect.stringMatching(/^pm_/),
    });
  });
});
