/**
 * Adyen's live connector (shared/providers/adyen) against the Adyen fake over HTTP: the fake checks every request body
 * against Adyen's published Checkout v72 OpenAPI and keeps Adyen's books, so each test reads what Adyen would hold.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import {
  ADYEN_EXPONENTS,
  adyenProvider,
  adyenValue,
  checkoutBaseUrl,
  parseProviderToken,
  type AdyenCredentials,
} from '../../shared/providers/adyen/index.ts';
import {
  BLOCKED_CARD_RAW,
  ERROR_CODES,
  HTTP_STATUSES,
  mapErrorAnswer,
  mapPaymentResult,
  mapTransportError,
  REFUSAL_REASONS,
  RESULT_CODES,
} from '../../shared/providers/adyen/errors.ts';
import { TEST_CARDS } from '../../shared/providers/test-cards.ts';
import type { AuthorizeRequest, Connector } from '../../shared/providers/types.ts';
import {
  type AdyenFakeServer,
  ADYEN_FAKE_API_KEY,
  ADYEN_FAKE_CREDENTIALS,
  ADYEN_FAKE_MERCHANT_ACCOUNT,
  startAdyenFake,
} from '../../infra/local/fakes/adyen/server.ts';
import type { FakeOperation } from '../../infra/local/fakes/types.ts';

const APPROVED_CARD = '4242424242424242';
const PROCESSING_ERROR_CARD = '4000000000000119';
const CHARGES_FAIL_LATER_CARD = '4000000000000341';

/** Stripe's decline codes (docs/api.md "Provider answers": our decline_code vocabulary). */
const STRIPE_DECLINE_CODES = new Set([
  'authentication_required',
  'call_issuer',
  'card_not_supported',
  'card_velocity_exceeded',
  'do_not_honor',
  'do_not_try_again',
  'expired_card',
  'fraudulent',
  'generic_decline',
  'incorrect_cvc',
  'incorrect_number',
  'incorrect_pin',
  'incorrect_zip',
  'insufficient_funds',
  'invalid_account',
  'invalid_amount',
  'invalid_cvc',
  'invalid_expiry_year',
  'issuer_not_available',
  'lost_card',
  'online_or_offline_pin_required',
  'pickup_card',
  'pin_try_exceeded',
  'processing_error',
  'restricted_card',
  'revocation_of_authorization',
  'stolen_card',
  'transaction_not_allowed',
  'withdrawal_count_limit_exceeded',
]);

let fake: AdyenFakeServer;
let adyen: Connector;
const originalBaseUrl = config.ADYEN_CHECKOUT_BASE_URL;

beforeAll(async () => {
  fake = await startAdyenFake({ port: 0 });
  config.ADYEN_CHECKOUT_BASE_URL = fake.url;
  adyen = adyenProvider.connect(ADYEN_FAKE_CREDENTIALS, { id: 'con_adyen_test', mode: 'test' });
});

afterEach(() => {
  fake.clearFaults();
  // Every answer the fake gave matched Adyen's response schemas, and every call was one it serves.
  expect(fake.contractViolations).toEqual([]);
});

afterAll(async () => {
  await fake.close();
  if (originalBaseUrl === undefined) delete config.ADYEN_CHECKOUT_BASE_URL;
  else config.ADYEN_CHECKOUT_BASE_URL = originalBaseUrl;
});

/** A payment id and its first attempt's key, unique to the test. */
function newPayment() {
  const paymentId = `pay_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  return { paymentId, key: `${paymentId}_1` };
}

function authorization(number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  const { paymentId, key } = newPayment();
  return {
    paymentId,
    idempotencyKey: key,
    amount: 5000,
    currency: 'EUR',
    card: { number, exp_month: 3, exp_year: 2030, cvc: '737' },
    attempt: 1,
    ...overrides,
  };
}

/** The calls the fake received under `key`, as [operation, body]. */
const callsUnder = (key: string) => fake.requests.filter((r) => r.idempotencyKey === key);
const holdsUnder = (key: string) => fake.holds().filter((h) => h.idempotencyKey === key);
const holdOf = (reference: string) => fake.holds().find((h) => h.reference === reference);

/** An authorized payment at the fake: its request and pspReference. */
async function authorized(overrides: Partial<AuthorizeRequest> = {}) {
  const request = authorization(APPROVED_CARD, overrides);
  const result = await adyen.authorize(request);
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  return { request, reference: result.reference, providerToken: result.providerToken };
}

/** A connector at an origin where nothing listens (a port just freed). */
async function connectorAtClosedPort(): Promise<Connector> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  config.ADYEN_CHECKOUT_BASE_URL = `http://127.0.0.1:${port}`;
  try {
    return adyenProvider.connect(ADYEN_FAKE_CREDENTIALS, { id: 'con_adyen_closed', mode: 'test' });
  } finally {
    config.ADYEN_CHECKOUT_BASE_URL = fake.url;
  }
}

describe('Adyen credentials', () => {
  it('accepts api_key and merchant_account with an optional hex hmac_key and live_url_prefix, and nothing else', () => {
    // Given / When
    const full = v.safeParse(adyenProvider.credentialsSchema, {
      ...ADYEN_FAKE_CREDENTIALS,
      hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
      live_url_prefix: '1797a841fbb37ca7-AdyenDemo',
    });
    const typo = v.safeParse(adyenProvider.credentialsSchema, { ...ADYEN_FAKE_CREDENTIALS, merchantAccount: 'x' });
    const hostInjection = v.safeParse(adyenProvider.credentialsSchema, { ...ADYEN_FAKE_CREDENTIALS, live_url_prefix: 'evil.example/x' });
    const missing = v.safeParse(adyenProvider.credentialsSchema, { api_key: ADYEN_FAKE_API_KEY });
    const tooShortToHint = v.safeParse(adyenProvider.credentialsSchema, { ...ADYEN_FAKE_CREDENTIALS, api_key: 'AQE1' });
    // Then
    expect(full.success).toBe(true);
    expect(typo.success).toBe(false);
    expect(hostInjection.success).toBe(false);
    expect(missing.success).toBe(false);
    expect(tooShortToHint.success).toBe(false);
  });

  it('shows only the last 4 characters of the API key', () => {
    expect(adyenProvider.hint(ADYEN_FAKE_CREDENTIALS)).toBe(`…${ADYEN_FAKE_API_KEY.slice(-4)}`);
  });

  it('needs live_url_prefix for a live connector, and nothing more for a test one', () => {
    // Given
    const withPrefix: AdyenCredentials = { ...ADYEN_FAKE_CREDENTIALS, live_url_prefix: '1797a841fbb37ca7-AdyenDemo' };
    // When / Then
    expect(adyenProvider.modeMismatch(ADYEN_FAKE_CREDENTIALS, 'live')).toMatch(/live_url_prefix/);
    expect(adyenProvider.modeMismatch(withPrefix, 'live')).toBeUndefined();
    expect(adyenProvider.modeMismatch(ADYEN_FAKE_CREDENTIALS, 'test')).toBeUndefined();
  });

  it("calls Adyen's test endpoint in test mode and the account's live endpoint in live mode, unless an origin is configured", () => {
    // Given
    const live: AdyenCredentials = { ...ADYEN_FAKE_CREDENTIALS, live_url_prefix: '1797a841fbb37ca7-AdyenDemo' };
    delete config.ADYEN_CHECKOUT_BASE_URL;
    try {
      // When / Then
      expect(checkoutBaseUrl(ADYEN_FAKE_CREDENTIALS, 'test')).toBe('https://checkout-test.adyen.com/v72');
      expect(checkoutBaseUrl(live, 'live')).toBe('https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout/v72');
    } finally {
      config.ADYEN_CHECKOUT_BASE_URL = fake.url;
    }
    expect(checkoutBaseUrl(live, 'live')).toBe(`${fake.url}/v72`);
  });

  it('verifies good credentials with one authenticated read-only call', async () => {
    // Given
    const before = fake.requests.length;
    // When
    const verification = await adyenProvider.verify(ADYEN_FAKE_CREDENTIALS, 'test');
    // Then
    expect(verification).toEqual({ ok: true });
    const calls = fake.requests.slice(before);
    expect(calls.map((c) => [c.operation, c.path])).toEqual([['verify', '/v72/paymentMethods']]);
    expect(calls[0]!.body).toEqual({ merchantAccount: ADYEN_FAKE_MERCHANT_ACCOUNT });
  });

  it("fails verification with Adyen's reason for an unknown API key or a merchant account the key may not use", async () => {
    // Given
    const badKey = { ...ADYEN_FAKE_CREDENTIALS, api_key: `AQE_unknown_${randomUUID()}` };
    const otherAccount = { ...ADYEN_FAKE_CREDENTIALS, merchant_account: 'SomeoneElsesECOM' };
    // When
    const [unknownKey, forbidden] = await Promise.all([adyenProvider.verify(badKey, 'test'), adyenProvider.verify(otherAccount, 'test')]);
    // Then
    expect(unknownKey).toEqual({ ok: false, reason: expect.stringMatching(/refused the API key.*Unauthorized/) });
    expect(forbidden).toEqual({ ok: false, reason: expect.stringMatching(/SomeoneElsesECOM.*901 Invalid Merchant Account/) });
    expect(JSON.stringify([unknownKey, forbidden])).not.toContain(badKey.api_key);
  });
});

describe('Adyen authorization', () => {
  it('authorizes a raw card for manual capture under our key, and Adyen holds it', async () => {
    // Given
    const request = authorization(APPROVED_CARD, { amount: 1999, currency: 'usd' });
    // When
    const result = await adyen.authorize(request);
    // Then
    expect(result).toMatchObject({ outcome: 'approved', reference: expect.stringMatching(/^[A-Z0-9]{16}$/), providerToken: '' });
    const [call] = callsUnder(request.idempotencyKey);
    expect(call).toMatchObject({ operation: 'authorize', method: 'POST', path: '/v72/payments' });
    expect(call!.body).toMatchObject({
      merchantAccount: ADYEN_FAKE_MERCHANT_ACCOUNT,
      reference: request.idempotencyKey,
      amount: { currency: 'USD', value: 1999 },
      paymentMethod: { type: 'scheme', number: APPROVED_CARD, expiryMonth: '03', expiryYear: '2030', cvc: '737' },
      additionalData: { manualCapture: 'true' },
      metadata: { paymentId: request.paymentId, attempt: '1' },
    });
    expect(holdsUnder(request.idempotencyKey)).toEqual([
      expect.objectContaining({ reference: result.outcome === 'approved' ? result.reference : '', state: 'authorized', amount: 1999, captured: 0 }),
    ]);
  });

  it.each(Object.entries(TEST_CARDS).flatMap(([number, behaviour]) => ('decline' in behaviour ? [[number, behaviour.decline] as const] : [])))(
    'declines test card %s as %s (hard), holding nothing',
    async (number, declineCode) => {
      // Given
      const request = authorization(number);
      // When
      const result = await adyen.authorize(request);
      // Then
      expect(result).toMatchObject({ outcome: 'declined', declineCode });
      expect(holdsUnder(request.idempotencyKey)).toEqual([]);
    },
  );

  it.each([
    ['12', 'insufficient_funds'],
    ['24', 'incorrect_cvc'],
    ['6', 'expired_card'],
    ['22', 'fraudulent'],
    ['2', 'generic_decline'],
  ])("maps Adyen's refusal %s to %s", async (code, declineCode) => {
    // Given
    fake.inject('authorize', { kind: 'decline', code });
    const request = authorization(APPROVED_CARD);
    // When
    const result = await adyen.authorize(request);
    // Then
    expect(result).toMatchObject({ outcome: 'declined', declineCode });
  });

  it('answers resultCode Error as a soft processing error at the first attempt; a failover attempt is approved', async () => {
    // Given
    const first = authorization(PROCESSING_ERROR_CARD, { attempt: 1 });
    const second = authorization(PROCESSING_ERROR_CARD, { paymentId: first.paymentId, idempotencyKey: `${first.paymentId}_2`, attempt: 2 });
    // When
    const [soft, approved] = [await adyen.authorize(first), await adyen.authorize(second)];
    // Then
    expect(soft).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(approved.outcome).toBe('approved');
    expect(holdsUnder(first.idempotencyKey)).toEqual([]);
  });

  it.each([503, 429, 500])('answers HTTP %s as an outage (provider_down), with nothing carried out', async (status) => {
    // Given
    fake.inject('authorize', { kind: 'status', status });
    const request = authorization(APPROVED_CARD);
    // When
    const result = await adyen.authorize(request);
    // Then
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
  });

  it('answers an Adyen it cannot connect to as an outage', async () => {
    // Given
    const unreachable = await connectorAtClosedPort();
    // When
    const result = await unreachable.authorize(authorization(APPROVED_CARD));
    // Then
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
  });

  it('answers a request Adyen refuses as invalid (422) as a soft processing error', async () => {
    // Given: a currency code the contract's Amount cannot carry (more than 3 letters)
    const request = authorization(APPROVED_CARD, { currency: 'EURO' });
    // When
    const result = await adyen.authorize(request);
    // Then
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(callsUnder(request.idempotencyKey)).toHaveLength(1);
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
  });

  it('refuses an amount Adyen cannot express in its minor units without calling Adyen (IDR has no cents there)', async () => {
    // Given
    const request = authorization(APPROVED_CARD, { amount: 150_050, currency: 'IDR' });
    // When
    const result = await adyen.authorize(request);
    // Then
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(callsUnder(request.idempotencyKey)).toEqual([]);
  });
});

describe('Adyen outcome unknown, resolved', () => {
  it('a connection dropped after Adyen accepted is unknown; the same request again under the same key finds the authorization', async () => {
    // Given
    fake.inject('authorize', { kind: 'accept_then_drop' });
    const request = authorization(APPROVED_CARD);
    // When
    const result = await adyen.authorize(request);
    const found = await adyen.lookup(request.idempotencyKey, undefined, request);
    // Then
    expect(result.outcome).toBe('unknown');
    const [hold] = holdsUnder(request.idempotencyKey);
    expect(found).toEqual({
      found: 'authorized',
      reference: hold!.reference,
      providerToken: '',
      networkTransactionId: expect.stringMatching(/^\d{15}$/),
    });
    expect(holdsUnder(request.idempotencyKey)).toHaveLength(1);
    expect(callsUnder(request.idempotencyKey).map((c) => c.operation)).toEqual(['authorize', 'lookup']);
  });

  it('an answer slower than the deadline is unknown at the deadline; the look-up with replay finds it', async () => {
    // Given
    fake.inject('authorize', { kind: 'slow', ms: 5_000 });
    const request = authorization(APPROVED_CARD, { signal: AbortSignal.timeout(300) });
    // When
    const result = await adyen.authorize(request);
    const found = await adyen.lookup(request.idempotencyKey, AbortSignal.timeout(2_000), { ...request, signal: undefined });
    // Then
    expect(result.outcome).toBe('unknown');
    expect(result.latencyMs).toBeLessThan(5_000);
    expect(found).toMatchObject({ found: 'authorized', reference: holdsUnder(request.idempotencyKey)[0]!.reference });
    expect(holdsUnder(request.idempotencyKey)).toHaveLength(1);
  });

  it('the look-up with replay reports a decline as a decline, and an Error result or a refused request as nothing held', async () => {
    // Given
    const declined = authorization('4000000000009995');
    const errored = authorization(PROCESSING_ERROR_CARD);
    const invalid = authorization(APPROVED_CARD, { currency: 'EURO' });
    fake.inject('authorize', { kind: 'accept_then_drop' }, 3);
    for (const request of [declined, errored, invalid]) expect((await adyen.authorize(request)).outcome).toBe('unknown');
    // When
    const found = [];
    for (const request of [declined, errored, invalid]) found.push(await adyen.lookup(request.idempotencyKey, undefined, request));
    // Then
    expect(found).toEqual([{ found: 'declined', declineCode: 'insufficient_funds' }, { found: 'none' }, { found: 'none' }]);
  });

  it('without the original request, or with Adyen unavailable, the look-up stays unknown', async () => {
    // Given
    const request = authorization(APPROVED_CARD);
    await adyen.authorize(request);
    fake.inject('lookup', { kind: 'status', status: 503 });
    // When
    const withoutReplay = await adyen.lookup(request.idempotencyKey);
    const unavailable = await adyen.lookup(request.idempotencyKey, undefined, request);
    // Then
    expect(withoutReplay).toEqual({ found: 'unknown' });
    expect(unavailable).toEqual({ found: 'unknown' });
  });

  it('reverse cancels the authorization by our reference: nothing stays authorized', async () => {
    // Given
    fake.inject('authorize', { kind: 'accept_then_drop' });
    const request = authorization(APPROVED_CARD);
    expect((await adyen.authorize(request)).outcome).toBe('unknown');
    // When
    const reversed = await adyen.reverse(request.idempotencyKey);
    // Then
    expect(reversed).toMatchObject({ ok: true });
    expect(holdsUnder(request.idempotencyKey).map((h) => h.state)).toEqual(['voided']);
    const [cancel] = fake.requests.filter(
      (r) => r.operation === 'reverse' && (r.body as { paymentReference?: string }).paymentReference === request.idempotencyKey,
    );
    expect(cancel).toMatchObject({ path: '/v72/cancels', idempotencyKey: `${request.idempotencyKey}.reverse` });
    expect(cancel!.body).toEqual({
      merchantAccount: ADYEN_FAKE_MERCHANT_ACCOUNT,
      paymentReference: request.idempotencyKey,
      reference: `${request.idempotencyKey}.reverse`,
    });
  });

  it('reverse before a late authorization lands also cancels it when it lands', async () => {
    // Given: the attempt is closed at Adyen while its request is still on the way
    const request = authorization(APPROVED_CARD);
    expect(await adyen.reverse(request.idempotencyKey)).toMatchObject({ ok: true });
    // When: the request in flight lands
    await adyen.authorize(request);
    // Then
    expect(holdsUnder(request.idempotencyKey).map((h) => h.state)).toEqual(['voided']);
    expect(fake.holds().filter((h) => h.idempotencyKey === request.idempotencyKey && h.state === 'authorized')).toEqual([]);
  });

  it('a reverse whose answer is lost is unknown, and one that cannot reach Adyen is provider_down', async () => {
    // Given
    const { key } = newPayment();
    fake.inject('reverse', { kind: 'accept_then_drop' });
    const unreachable = await connectorAtClosedPort();
    // When
    const [lost, down] = [await adyen.reverse(key), await unreachable.reverse(key)];
    // Then
    expect(lost).toEqual({ ok: false, reason: 'unknown' });
    expect(down).toEqual({ ok: false, reason: 'provider_down' });
  });
});

describe('Adyen captures, voids and refunds', () => {
  it('captures part of an authorization: Adyen receives it, and the rest is released', async () => {
    // Given
    const { request, reference } = await authorized({ amount: 1000 });
    // When
    const captured = await adyen.capture(reference, 600, 'EUR', `${request.paymentId}_capture`);
    // Then
    expect(captured).toEqual({ ok: true, reference: expect.stringMatching(/^[A-Z0-9]{16}$/), pending: true });
    expect(holdOf(reference)).toMatchObject({ state: 'captured', amount: 1000, captured: 600 });
    const [call] = callsUnder(`${request.paymentId}_capture`);
    expect(call).toMatchObject({ operation: 'capture', path: `/v72/payments/${reference}/captures` });
    expect(call!.body).toEqual({
      merchantAccount: ADYEN_FAKE_MERCHANT_ACCOUNT,
      amount: { currency: 'EUR', value: 600 },
      reference: `${request.paymentId}_capture`,
    });
  });

  it('captures once: a second capture, or one above the authorized amount, is refused', async () => {
    // Given
    const first = await authorized({ amount: 1000 });
    const second = await authorized({ amount: 1000 });
    await adyen.capture(first.reference, 1000, 'EUR', `${first.request.paymentId}_capture`);
    // When
    const again = await adyen.capture(first.reference, 100, 'EUR', `${first.request.paymentId}_capture2`);
    const tooMuch = await adyen.capture(second.reference, 1001, 'EUR', `${second.request.paymentId}_capture`);
    // Then
    expect(again).toEqual({ ok: false, reason: 'refused', message: 'Modification not possible: the payment is captured' });
    expect(tooMuch).toEqual({ ok: false, reason: 'refused', message: 'Invalid amount specified' });
    expect(holdOf(second.reference)).toMatchObject({ state: 'authorized', captured: 0 });
  });

  it('voids an uncaptured authorization, and refuses to void a captured one', async () => {
    // Given
    const open = await authorized();
    const captured = await authorized();
    await adyen.capture(captured.reference, 5000, 'EUR', `${captured.request.paymentId}_capture`);
    // When
    const voided = await adyen.void(open.reference, `${open.request.paymentId}_void`);
    const refused = await adyen.void(captured.reference, `${captured.request.paymentId}_void`);
    // Then
    expect(voided).toMatchObject({ ok: true });
    expect(holdOf(open.reference)).toMatchObject({ state: 'voided' });
    expect(refused).toEqual({ ok: false, reason: 'refused', message: 'Modification not possible: the payment is captured' });
    expect(holdOf(captured.reference)).toMatchObject({ state: 'captured', captured: 5000 });
  });

  it('refunds in several parts up to the captured amount, and refuses a refund beyond it', async () => {
    // Given
    const { request, reference } = await authorized({ amount: 1000 });
    await adyen.capture(reference, 800, 'EUR', `${request.paymentId}_capture`);
    // When
    const r1 = await adyen.refund(reference, 300, 'EUR', `ref_${randomUUID()}`);
    const r2 = await adyen.refund(reference, 300, 'EUR', `ref_${randomUUID()}`);
    const beyond = await adyen.refund(reference, 201, 'EUR', `ref_${randomUUID()}`);
    const rest = await adyen.refund(reference, 200, 'EUR', `ref_${randomUUID()}`);
    // Then
    expect([r1, r2, rest].map((r) => r.ok)).toEqual([true, true, true]);
    expect(r1.ok && r2.ok && r1.reference !== r2.reference).toBe(true);
    expect(beyond).toEqual({ ok: false, reason: 'refused', message: 'Invalid amount specified' });
    expect(holdOf(reference)).toMatchObject({ captured: 800, refunded: 800 });
  });

  it('classes an operation Adyen cannot take now as provider_down and one whose answer was lost as unknown', async () => {
    // Given
    const { request, reference } = await authorized();
    fake.inject('capture', { kind: 'status', status: 503 });
    fake.inject('capture', { kind: 'accept_then_drop' });
    // When
    const down = await adyen.capture(reference, 5000, 'EUR', `${request.paymentId}_capture`);
    const lost = await adyen.capture(reference, 5000, 'EUR', `${request.paymentId}_capture`);
    const retried = await adyen.capture(reference, 5000, 'EUR', `${request.paymentId}_capture`);
    // Then
    expect(down).toEqual({ ok: false, reason: 'provider_down' });
    expect(lost).toEqual({ ok: false, reason: 'unknown' });
    expect(retried).toMatchObject({ ok: true });
    expect(holdOf(reference)).toMatchObject({ state: 'captured', captured: 5000 });
  });
});

describe('Adyen idempotency', () => {
  it('every money call carries our idempotency key (the attempt id, the payment id plus operation, the refund id)', async () => {
    // Given
    const before = fake.requests.length;
    const { request, reference } = await authorized({ amount: 1000 });
    const voidable = await authorized();
    const refundId = `ref_${randomUUID()}`;
    // When
    await adyen.capture(reference, 1000, 'EUR', `${request.paymentId}_capture`);
    await adyen.refund(reference, 400, 'EUR', refundId);
    await adyen.void(voidable.reference, `${voidable.request.paymentId}_void`);
    await adyen.reverse(voidable.request.idempotencyKey);
    // Then
    const keyOf = (operation: FakeOperation, match: (path: string) => boolean) =>
      fake.requests.filter((r) => r.operation === operation && match(r.path)).map((r) => r.idempotencyKey);
    expect(keyOf('authorize', () => true)).toEqual(expect.arrayContaining([request.idempotencyKey, voidable.request.idempotencyKey]));
    expect(keyOf('capture', (p) => p.includes(reference))).toEqual([`${request.paymentId}_capture`]);
    expect(keyOf('refund', (p) => p.includes(reference))).toEqual([refundId]);
    expect(keyOf('void', (p) => p.includes(voidable.reference))).toEqual([`${voidable.request.paymentId}_void`]);
    expect(keyOf('reverse', () => true)).toContain(`${voidable.request.idempotencyKey}.reverse`);
    const moneyCalls = fake.requests.slice(before);
    expect(moneyCalls).toHaveLength(6);
    expect(moneyCalls.every((r) => typeof r.idempotencyKey === 'string' && r.idempotencyKey.length > 0 && r.idempotencyKey.length <= 64)).toBe(true);
  });

  it('the same call twice under one key has one effect', async () => {
    // Given
    const request = authorization(APPROVED_CARD, { amount: 1000 });
    const refundId = `ref_${randomUUID()}`;
    // When
    const [a, b] = [await adyen.authorize(request), await adyen.authorize(request)];
    const reference = a.outcome === 'approved' ? a.reference : '';
    const [c1, c2] = [
      await adyen.capture(reference, 700, 'EUR', `${request.paymentId}_capture`),
      await adyen.capture(reference, 700, 'EUR', `${request.paymentId}_capture`),
    ];
    const [r1, r2] = [await adyen.refund(reference, 500, 'EUR', refundId), await adyen.refund(reference, 500, 'EUR', refundId)];
    // Then
    expect(b).toMatchObject({ outcome: 'approved', reference });
    expect(holdsUnder(request.idempotencyKey)).toHaveLength(1);
    expect(c2).toEqual(c1);
    expect(r2).toEqual(r1);
    expect(holdOf(reference)).toMatchObject({ captured: 700, refunded: 500 });
  });

  it('sends a key longer than Adyen allows (64) as its SHA-256, as the Idempotency-Key and the reference alike', async () => {
    // Given
    const longKey = `pay_${randomUUID()}_${'x'.repeat(40)}_1`;
    const request = authorization(APPROVED_CARD, { idempotencyKey: longKey });
    const before = fake.requests.length;
    // When
    const [first, again] = [await adyen.authorize(request), await adyen.authorize(request)];
    const reversed = await adyen.reverse(longKey);
    // Then
    const [a, b, cancel] = fake.requests.slice(before);
    expect(a!.idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
    expect(b!.idempotencyKey).toBe(a!.idempotencyKey);
    expect(a!.body).toMatchObject({ reference: a!.idempotencyKey });
    expect(cancel!.body).toMatchObject({ paymentReference: a!.idempotencyKey });
    expect(again).toEqual({ ...first, latencyMs: again.latencyMs });
    expect(reversed.ok).toBe(true);
    expect(
      fake
        .holds()
        .filter((h) => h.idempotencyKey === a!.idempotencyKey)
        .map((h) => h.state),
    ).toEqual(['voided']);
  });
});

describe('Adyen stored cards', () => {
  it('stores the card for a customer and charges it later as a merchant-initiated subscription payment', async () => {
    // Given
    const customerReference = `cus_${randomUUID()}`;
    const first = authorization(APPROVED_CARD, { storeFor: { customerReference, email: 'ada@example.com' } });
    // When
    const stored = await adyen.authorize(first);
    const token = stored.outcome === 'approved' ? (stored.providerToken ?? '') : '';
    const renewal = authorization(APPROVED_CARD, { card: undefined, providerToken: token, amount: 1200, initiator: { type: 'merchant' } });
    const charged = await adyen.authorize(renewal);
    // Then
    expect(parseProviderToken(token)).toEqual({
      storedPaymentMethodId: expect.stringMatching(/^[A-Z0-9]{16}$/),
      shopperReference: customerReference,
    });
    expect(callsUnder(first.idempotencyKey)[0]!.body).toMatchObject({
      storePaymentMethod: true,
      shopperReference: customerReference,
      shopperEmail: 'ada@example.com',
      recurringProcessingModel: 'Subscription',
      shopperInteraction: 'Ecommerce',
    });
    expect(charged).toMatchObject({ outcome: 'approved', providerToken: token });
    expect(callsUnder(renewal.idempotencyKey)[0]!.body).toMatchObject({
      paymentMethod: { type: 'scheme', storedPaymentMethodId: parseProviderToken(token)!.storedPaymentMethodId },
      shopperReference: customerReference,
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'Subscription',
      amount: { currency: 'EUR', value: 1200 },
    });
    expect(holdsUnder(renewal.idempotencyKey)).toEqual([expect.objectContaining({ state: 'authorized', amount: 1200 })]);
  });

  it("charges the stored card as the shopper's own card-on-file payment when no initiator is given", async () => {
    // Given a card stored for a customer
    const customerReference = `cus_${randomUUID()}`;
    const { providerToken } = await authorized({ storeFor: { customerReference } });
    const next = authorization(APPROVED_CARD, { card: undefined, providerToken, amount: 900 });
    // When the shopper pays with it again
    const charged = await adyen.authorize(next);
    // Then it is Ecommerce + CardOnFile on the stored payment method, 3D Secure not attempted, and approved
    expect(charged).toMatchObject({ outcome: 'approved', providerToken });
    const sent = callsUnder(next.idempotencyKey)[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      paymentMethod: { type: 'scheme', storedPaymentMethodId: parseProviderToken(providerToken!)!.storedPaymentMethodId },
      shopperReference: customerReference,
      shopperInteraction: 'Ecommerce',
      recurringProcessingModel: 'CardOnFile',
      authenticationData: { attemptAuthentication: 'never' },
    });
    expect(sent).not.toHaveProperty('additionalData.networkTxReference');
    expect(holdsUnder(next.idempotencyKey)).toEqual([expect.objectContaining({ state: 'authorized', amount: 900 })]);
  });

  it.each([
    ['merchant-initiated', { type: 'merchant' } as const],
    ['customer-initiated', undefined],
  ])('4000000000000341 is stored and approved, but a later %s charge on it is declined', async (_kind, initiator) => {
    // Given
    const first = authorization(CHARGES_FAIL_LATER_CARD, { storeFor: { customerReference: `cus_${randomUUID()}` } });
    const stored = await adyen.authorize(first);
    expect(stored.outcome).toBe('approved');
    // When
    const later = await adyen.authorize(
      authorization(APPROVED_CARD, { card: undefined, providerToken: stored.outcome === 'approved' ? stored.providerToken : '', initiator }),
    );
    // Then
    expect(later).toMatchObject({ outcome: 'declined', declineCode: 'generic_decline' });
  });

  it('declines a token Adyen does not have, and a malformed one without calling Adyen', async () => {
    // Given
    const unknown = authorization(APPROVED_CARD, { card: undefined, providerToken: `NOSUCHMETHOD0001:cus_${randomUUID()}` });
    const malformed = authorization(APPROVED_CARD, { card: undefined, providerToken: 'not-a-token' });
    // When
    const [a, b] = [await adyen.authorize(unknown), await adyen.authorize(malformed)];
    // Then
    expect(a).toMatchObject({ outcome: 'declined', declineCode: 'invalid_account' });
    expect(b).toMatchObject({ outcome: 'declined', declineCode: 'invalid_account' });
    expect(callsUnder(malformed.idempotencyKey)).toEqual([]);
  });
});

describe('Adyen amounts', () => {
  it.each([
    ['JPY', 500, 500],
    ['KWD', 1234, 1234],
    ['EUR', 1050, 1050],
    ['ISK', 1000, 100_000],
    ['CLP', 990, 99_000],
    ['IDR', 150_000, 1_500],
  ])('sends %s %i (our minor units) as Amount.value %i in Adyen’s minor units', async (currency, amount, value) => {
    // Given
    const request = authorization(APPROVED_CARD, { currency, amount });
    // When
    const result = await adyen.authorize(request);
    // Then
    expect(result.outcome).toBe('approved');
    expect(callsUnder(request.idempotencyKey)[0]!.body).toMatchObject({ amount: { currency, value } });
    expect(adyenValue(amount, currency)).toBe(value);
  });

  it('uses ISO 4217 exponents except where Adyen documents its own (CLP, CVE, IDR, ISK)', () => {
    expect(Object.keys(ADYEN_EXPONENTS).sort()).toEqual(['CLP', 'CVE', 'IDR', 'ISK']);
    expect(adyenValue(1_000, 'BHD')).toBe(1_000);
    expect(adyenValue(12_300, 'CVE')).toBe(123);
    expect(adyenValue(12_345, 'CVE')).toBeUndefined();
  });
});

describe("the Adyen fake checks requests against Adyen's OpenAPI", () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${fake.url}/v72${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADYEN_FAKE_API_KEY, ...headers },
      body: JSON.stringify(body),
    });
  const validPayment = () => ({
    merchantAccount: ADYEN_FAKE_MERCHANT_ACCOUNT,
    reference: `ref_${randomUUID()}`,
    amount: { currency: 'EUR', value: 1000 },
    returnUrl: 'https://no-redirect.invalid/adyen',
    paymentMethod: { type: 'scheme', number: APPROVED_CARD, expiryMonth: '03', expiryYear: '2030', cvc: '737' },
    additionalData: { manualCapture: 'true' },
  });

  it("accepts a request as Adyen's example builds it", async () => {
    const response = await post('/payments', validPayment());
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ resultCode: 'Authorised' });
  });

  it.each([
    ['an amount value that is not an integer', { amount: { currency: 'EUR', value: '10.00' } }, /amount\/value must be integer/],
    ['a field the contract does not have', { manualCapture: true }, /must NOT have additional properties \(manualCapture\)/],
    ['a misspelt additionalData key', { additionalData: { manualcapture: 'true' } }, /additionalData has keys.*manualcapture/],
    ['no returnUrl', { returnUrl: undefined }, /must have required property 'returnUrl'/],
  ])("refuses %s with Adyen's 422 validation error, and carries nothing out", async (_case, change, message) => {
    // Given
    const body = { ...validPayment(), ...change };
    const before = fake.holds().length;
    // When
    const response = await post('/payments', body, { 'idempotency-key': `key_${randomUUID()}` });
    // Then
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ status: 422, errorCode: '702', message: expect.stringMatching(message), errorType: 'validation' });
    expect(fake.holds()).toHaveLength(before);
  });

  it('answers 401 to an unknown X-API-Key', async () => {
    const response = await post('/payments', validPayment(), { 'x-api-key': 'AQE_not_a_key' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ status: 401, errorType: 'security' });
  });
});

describe('the Adyen error map', () => {
  it('maps every refusal reason to a decline code of our vocabulary, the card’s answer unless Adyen could not process it', () => {
    for (const [code, [adyenText, declineCode, failureClass]] of REFUSAL_REASONS) {
      expect(STRIPE_DECLINE_CODES.has(declineCode), `${code} ${adyenText}`).toBe(true);
      expect(['hard', 'soft']).toContain(failureClass);
    }
    for (const [, [, declineCode]] of [...BLOCKED_CARD_RAW, ...ERROR_CODES, ...RESULT_CODES, ...HTTP_STATUSES])
      expect(STRIPE_DECLINE_CODES.has(declineCode), declineCode).toBe(true);
    expect(REFUSAL_REASONS.get('4')?.[2]).toBe('soft');
    expect(REFUSAL_REASONS.get('9')?.[2]).toBe('soft');
  });

  it('reads result codes: Authorised approves, Error is soft, answers that are not final are unknown', () => {
    expect(mapPaymentResult({ resultCode: 'Authorised' })).toBe('approved');
    expect(mapPaymentResult({ resultCode: 'Error', refusalReasonCode: '4' })).toEqual({ declineCode: 'processing_error', class: 'soft' });
    expect(mapPaymentResult({ resultCode: 'Pending' })).toMatchObject({ class: 'unknown' });
    expect(mapPaymentResult({ resultCode: 'Received' })).toMatchObject({ class: 'unknown' });
    expect(mapPaymentResult({ resultCode: 'PartiallyAuthorised' })).toMatchObject({ class: 'unknown' });
    expect(mapPaymentResult({ resultCode: 'RedirectShopper' })).toEqual({ declineCode: 'authentication_required', class: 'hard' });
    expect(mapPaymentResult({ resultCode: 'SomethingNew' })).toMatchObject({ class: 'unknown' });
  });

  it('tells lost from stolen cards inside Blocked Card by the raw acquirer response, and keeps unlisted refusals hard', () => {
    expect(mapPaymentResult({ resultCode: 'Refused', refusalReasonCode: '5', refusalReasonRaw: '41 : Lost card' })).toEqual({
      declineCode: 'lost_card',
      class: 'hard',
    });
    expect(mapPaymentResult({ resultCode: 'Refused', refusalReasonCode: '5', refusalReasonRaw: '43 : Stolen card' })).toEqual({
      declineCode: 'stolen_card',
      class: 'hard',
    });
    expect(mapPaymentResult({ resultCode: 'Refused', refusalReasonCode: '5' })).toEqual({ declineCode: 'pickup_card', class: 'hard' });
    expect(mapPaymentResult({ resultCode: 'Refused', refusalReasonCode: '99' })).toEqual({ declineCode: 'generic_decline', class: 'hard' });
  });

  it.each([
    [401, undefined, 'soft'],
    [403, '901', 'soft'],
    [422, '14_030', 'soft'],
    [422, '704', 'unknown'],
    [429, undefined, 'outage'],
    [500, '905', 'outage'],
    [503, undefined, 'outage'],
    [502, undefined, 'unknown'],
    [504, undefined, 'unknown'],
    [418, undefined, 'soft'],
  ] as const)('classes HTTP %s (errorCode %s) as %s', (status, errorCode, failureClass) => {
    expect(mapErrorAnswer(status, errorCode).class).toBe(failureClass);
  });

  it('classes card data Adyen refuses as invalid as the card’s answer', () => {
    expect(mapErrorAnswer(422, '101')).toEqual({ declineCode: 'incorrect_number', class: 'hard' });
    expect(mapErrorAnswer(422, '103')).toEqual({ declineCode: 'invalid_cvc', class: 'hard' });
    expect(mapErrorAnswer(422, '803')).toEqual({ declineCode: 'invalid_account', class: 'hard' });
  });

  it('classes a connection that never opened as an outage, and a timeout or lost connection as unknown', () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    const multiAddress = new TypeError('fetch failed', { cause: new AggregateError([Object.assign(new Error('x'), { code: 'ENETUNREACH' })]) });
    const noAddress = new TypeError('fetch failed', { cause: Object.assign(new Error('connect EADDRNOTAVAIL'), { code: 'EADDRNOTAVAIL' }) });
    const closed = new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(mapTransportError(refused).class).toBe('outage');
    expect(mapTransportError(multiAddress).class).toBe('outage');
    expect(mapTransportError(noAddress).class).toBe('outage');
    expect(mapTransportError(closed).class).toBe('unknown');
    expect(mapTransportError(timeout).class).toBe('unknown');
    expect(mapTransportError(timeout, { sent: false }).class).toBe('outage');
  });

  it('sends nothing once the attempt’s deadline has already passed: nothing can be held', async () => {
    // Given
    const request = authorization(APPROVED_CARD, { signal: AbortSignal.abort() });
    // When
    const result = await adyen.authorize(request);
    // Then
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
    expect(callsUnder(request.idempotencyKey)).toEqual([]);
  });
});
