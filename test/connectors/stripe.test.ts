import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import Stripe from 'stripe';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { toStripeAmount } from '../../shared/providers/stripe/amounts.ts';
import { classify, ERROR_MAP, mapStripeFailure, ruleFor, type StripeFailure } from '../../shared/providers/stripe/errors.ts';
import { stripeProvider } from '../../shared/providers/stripe/index.ts';
import type { AuthorizeRequest, AuthorizeResult, Connector, FailureClass } from '../../shared/providers/types.ts';
import { STRIPE_FAKE_LIVE_KEY, STRIPE_FAKE_SECRET_KEY, type StripeFake, startStripeFake } from '../../infra/local/fakes/stripe/server.ts';

// The real SDK against the fake over HTTP: the fake listens on a free port and the connector is pointed at it
// through STRIPE_API_BASE_URL before any client is made.
const credentials = { secret_key: STRIPE_FAKE_SECRET_KEY };
const account = { id: 'con_stripe_test', mode: 'test' as const };
const originalBaseUrl = config.STRIPE_API_BASE_URL;
let fake: StripeFake;
let stripe: Connector;

beforeAll(async () => {
  fake = await startStripeFake();
  config.STRIPE_API_BASE_URL = fake.url;
  stripe = stripeProvider.connect(credentials, account);
});
afterEach(() => fake.clearFaults());
afterAll(async () => {
  await fake.close();
  config.STRIPE_API_BASE_URL = originalBaseUrl;
});

const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });
/** A request for a fresh payment: its own payment id and attempt key. */
const request = (overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => {
  const paymentId = `pay_${randomUUID()}`;
  return { paymentId, idempotencyKey: `${paymentId}_1`, amount: 5000, currency: 'EUR', card: card('4242424242424242'), attempt: 1, ...overrides };
};
const approved = (result: AuthorizeResult) => {
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  return result;
};
const holdOf = (reference: string) => fake.holds().find((hold) => hold.reference === reference);
const callsUnder = (key: string) => fake.requests.filter((r) => r.idempotencyKey === key);

/** An origin where nothing listens (a port just freed). */
async function closedOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** A connector whose client is made while STRIPE_API_BASE_URL is `origin`. */
function connectorAt(origin: string, secretKey = STRIPE_FAKE_SECRET_KEY): Connector {
  config.STRIPE_API_BASE_URL = origin;
  try {
    return stripeProvider.connect({ secret_key: secretKey }, account);
  } finally {
    config.STRIPE_API_BASE_URL = fake.url;
  }
}

describe('Stripe credentials', () => {
  it('accepts a secret or restricted key with an optional webhook secret, and nothing else', () => {
    const schema = stripeProvider.credentialsSchema;
    expect(v.is(schema, { secret_key: STRIPE_FAKE_SECRET_KEY, webhook_secret: 'whsec_abcdefgh12345678' })).toBe(true);
    expect(v.is(schema, { secret_key: 'rk_live_abcdefgh12345678' })).toBe(true);
    for (const bad of [{}, { secret_key: 'pk_test_abcdefgh12345678' }, { secret_key: STRIPE_FAKE_SECRET_KEY, webhook_secret: 'nope' }]) {
      expect(v.is(schema, bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('hints at the key by its last 4 characters only', () => {
    expect(stripeProvider.hint({ secret_key: 'sk_test_abcdefgh1234WXYZ' })).toBe('…WXYZ');
  });

  it.each([
    ['sk_test_abcdefgh12345678', 'live', true],
    ['rk_test_abcdefgh12345678', 'live', true],
    ['sk_live_abcdefgh12345678', 'test', true],
    ['rk_live_abcdefgh12345678', 'test', true],
    ['sk_test_abcdefgh12345678', 'test', false],
    ['sk_live_abcdefgh12345678', 'live', false],
  ] as const)('a %s key in %s mode: mismatch %s', (secret_key, mode, mismatch) => {
    const reason = stripeProvider.modeMismatch({ secret_key }, mode);
    if (mismatch) expect(reason).toMatch(new RegExp(`cannot act in ${mode} mode`));
    else expect(reason).toBeUndefined();
  });

  it('verifies a good key with one read-only call carrying the pinned API version', async () => {
    // Given the fake's test key
    const before = fake.requests.length;
    // When it is verified
    const verification = await stripeProvider.verify(credentials, 'test');
    // Then Stripe's balance was read once, under the SDK's pinned version
    expect(verification).toEqual({ ok: true });
    expect(fake.requests.slice(before)).toMatchObject([
      { operation: 'verify', method: 'GET', path: '/v1/balance', stripeVersion: Stripe.API_VERSION },
    ]);
  });

  it("answers a bad key with Stripe's own reason", async () => {
    const verification = await stripeProvider.verify({ secret_key: 'sk_test_unknownkey9876' }, 'test');
    expect(verification).toEqual({ ok: false, reason: 'Invalid API Key provided: sk_test_**********9876' });
  });

  it('refuses a key whose account answers in the other mode, and an unreachable Stripe', async () => {
    expect(await stripeProvider.verify({ secret_key: STRIPE_FAKE_LIVE_KEY }, 'test')).toEqual({ ok: false, reason: 'Stripe answered for live mode' });
    config.STRIPE_API_BASE_URL = await closedOrigin();
    try {
      const verification = await stripeProvider.verify(credentials, 'test');
      expect(verification).toMatchObject({ ok: false, reason: expect.stringMatching(/^Stripe could not be reached/) });
    } finally {
      config.STRIPE_API_BASE_URL = fake.url;
    }
  });
});

describe('authorize', () => {
  it('approves 4242… with a PaymentIntent confirmed at once for manual capture, under our idempotency key', async () => {
    // Given a new card
    const attempt = request();
    // When it is authorized
    const result = approved(await stripe.authorize(attempt));
    // Then the fake holds the amount under that PaymentIntent, made as docs/api.md "Providers and connector accounts" describes
    expect(result.reference).toMatch(/^pi_/);
    expect(result.providerToken).toBe(''); // nothing kept for later without storeFor
    expect(holdOf(result.reference)).toMatchObject({ idempotencyKey: attempt.idempotencyKey, amount: 5000, currency: 'eur', state: 'authorized' });
    const [create] = callsUnder(attempt.idempotencyKey);
    expect(create).toMatchObject({ operation: 'authorize', method: 'POST', path: '/v1/payment_intents' });
    expect(create?.body).toMatchObject({
      amount: '5000',
      currency: 'eur',
      confirm: 'true',
      capture_method: 'manual',
      allowed_payment_method_types: ['card'],
      payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: '12', exp_year: '2034', cvc: '123' } },
      metadata: { payment_id: attempt.paymentId, attempt_id: attempt.idempotencyKey },
    });
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000009987', 'lost_card'],
    ['4000000000009979', 'stolen_card'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4100000000000019', 'fraudulent'],
  ])('declines %s with %s (hard: nothing held)', async (number, declineCode) => {
    const attempt = request({ card: card(number) });
    const result = await stripe.authorize(attempt);
    expect(result).toMatchObject({ outcome: 'declined', declineCode });
    expect(fake.holds().filter((h) => h.idempotencyKey === attempt.idempotencyKey)).toEqual([]);
  });

  it("declines with the issuer's code when the fake injects one", async () => {
    fake.inject('authorize', { kind: 'decline', code: 'do_not_honor' });
    expect(await stripe.authorize(request())).toMatchObject({ outcome: 'declined', declineCode: 'do_not_honor' });
  });

  it('fails softly on 4000000000000119 (processing_error): routing may try another provider', async () => {
    const attempt = request({ card: card('4000000000000119') });
    expect(await stripe.authorize(attempt)).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(await stripe.lookup(attempt.idempotencyKey)).toEqual({ found: 'none' });
  });

  it.each([503, 502, 429])('answers HTTP %i as an outage (provider_down): nothing was carried out', async (status) => {
    fake.inject('authorize', { kind: 'status', status });
    const attempt = request();
    expect(await stripe.authorize(attempt)).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
    expect(await stripe.lookup(attempt.idempotencyKey)).toEqual({ found: 'none' });
  });

  it('answers HTTP 500 as unknown (Stripe: "treat the result of a 500 as indeterminate")', async () => {
    fake.inject('authorize', { kind: 'status', status: 500 });
    expect(await stripe.authorize(request())).toMatchObject({ outcome: 'unknown' });
  });

  it('answers a connection refused before sending as an outage', async () => {
    const unreachable = connectorAt(await closedOrigin());
    expect(await unreachable.authorize(request())).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
  });

  it('answers unknown when the connection drops after Stripe accepted; look-ups find the authorization, reverse cancels it', async () => {
    // Given a fake that carries the create out and drops the connection, also for the SDK's own retry of a reset
    fake.inject('authorize', { kind: 'accept_then_drop' }, 2);
    const attempt = request();
    // When it is authorized
    const result = await stripe.authorize(attempt);
    // Then the outcome is unknown, although the fake holds an authorization under the key
    expect(result.outcome).toBe('unknown');
    const [held] = fake.holds().filter((h) => h.idempotencyKey === attempt.idempotencyKey);
    expect(held).toMatchObject({ state: 'authorized' });
    // And a look-up finds it, by replaying the request and by reading the list
    const found = { found: 'authorized', reference: held!.reference, providerToken: '', networkTransactionId: expect.stringMatching(/^\d{15}$/) };
    expect(await stripe.lookup(attempt.idempotencyKey, undefined, attempt)).toEqual(found);
    expect(await stripe.lookup(attempt.idempotencyKey)).toEqual(found);
    // And a reversal cancels it: nothing stays authorized
    expect(await stripe.reverse(attempt.idempotencyKey)).toEqual({ ok: true, reference: held!.reference });
    expect(holdOf(held!.reference)?.state).toBe('voided');
    expect(fake.holds().filter((h) => h.state === 'authorized' && h.idempotencyKey === attempt.idempotencyKey)).toEqual([]);
    expect(await stripe.lookup(attempt.idempotencyKey)).toEqual({ found: 'none' });
  });

  it('recovers one dropped connection through the SDK retry under the same key: one authorization', async () => {
    fake.inject('authorize', { kind: 'accept_then_drop' });
    const attempt = request();
    const result = approved(await stripe.authorize(attempt));
    expect(callsUnder(attempt.idempotencyKey).map((r) => r.operation)).toEqual(['authorize', 'authorize']);
    expect(fake.holds().filter((h) => h.idempotencyKey === attempt.idempotencyKey)).toEqual([
      expect.objectContaining({ reference: result.reference }),
    ]);
  });

  it('answers unknown at the deadline when Stripe answers too slowly; look-ups find it, reverse cancels it', async () => {
    // Given a fake that carries the create out and answers after 5 s
    fake.inject('authorize', { kind: 'slow', ms: 5_000 });
    const attempt = request();
    // When the attempt's deadline passes first
    const result = await stripe.authorize({ ...attempt, signal: AbortSignal.timeout(200) });
    // Then it is unknown at the deadline
    expect(result).toMatchObject({ outcome: 'unknown' });
    expect(result.latencyMs).toBeLessThan(2_000);
    // And the authorization made meanwhile is found with and without the request, and reversed
    const [held] = fake.holds().filter((h) => h.idempotencyKey === attempt.idempotencyKey);
    expect(await stripe.lookup(attempt.idempotencyKey, AbortSignal.timeout(2_000), attempt)).toMatchObject({
      found: 'authorized',
      reference: held!.reference,
    });
    expect(await stripe.lookup(attempt.idempotencyKey, AbortSignal.timeout(2_000))).toMatchObject({
      found: 'authorized',
      reference: held!.reference,
    });
    expect(await stripe.reverse(attempt.idempotencyKey)).toMatchObject({ ok: true });
    expect(holdOf(held!.reference)?.state).toBe('voided');
  });

  it('authorizes once for the same request twice under one key (Stripe replays its answer)', async () => {
    const attempt = request();
    const first = approved(await stripe.authorize(attempt));
    const second = approved(await stripe.authorize(attempt));
    expect(second.reference).toBe(first.reference);
    expect(fake.holds().filter((h) => h.idempotencyKey === attempt.idempotencyKey)).toHaveLength(1);
  });
});

describe('amounts in Stripe units', () => {
  it.each([
    ['JPY', 500, '500'],
    ['KWD', 12_340, '12340'],
    ['ISK', 500, '50000'],
    ['EUR', 1999, '1999'],
  ])('sends %s %i as amount %s', async (currency, amount, sent) => {
    const attempt = request({ currency, amount });
    const result = approved(await stripe.authorize(attempt));
    expect(callsUnder(attempt.idempotencyKey)[0]?.body).toMatchObject({ amount: sent, currency: currency.toLowerCase() });
    expect(holdOf(result.reference)).toMatchObject({ amount: Number(sent), currency: currency.toLowerCase() });
  });

  it('never rounds: a KWD amount not ending in 0 fails softly without reaching Stripe, so routing can try another provider', async () => {
    const attempt = request({ currency: 'KWD', amount: 12_345 });
    expect(await stripe.authorize(attempt)).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(callsUnder(attempt.idempotencyKey)).toEqual([]);
  });

  it('maps ISO minor units to Stripe units, refusing what Stripe cannot take exactly', () => {
    expect([toStripeAmount(100, 'USD'), toStripeAmount(100, 'jpy'), toStripeAmount(7, 'ISK'), toStripeAmount(1230, 'BHD')]).toEqual([
      100, 100, 700, 1230,
    ]);
    expect([toStripeAmount(1231, 'OMR'), toStripeAmount(150, 'MGA'), toStripeAmount(200, 'MGA')]).toEqual([undefined, undefined, 2]);
  });

  it('refuses a partial KWD capture Stripe cannot take, without a call', async () => {
    const result = approved(await stripe.authorize(request({ currency: 'KWD', amount: 10_000 })));
    const key = `cap_${randomUUID()}`;
    expect(await stripe.capture(result.reference, 5_005, 'KWD', key)).toEqual({ ok: false, reason: 'processing_error' });
    expect(callsUnder(key)).toEqual([]);
    expect(holdOf(result.reference)?.state).toBe('authorized');
  });
});

describe('cards on file', () => {
  it('keeps the card for a customer, then a renewal charges it off-session with the token', async () => {
    // Given a first payment that keeps the card for our customer
    const customerReference = `cus_${randomUUID()}`;
    const first = request({ storeFor: { customerReference, email: 'jane@example.com' } });
    const kept = approved(await stripe.authorize(first));
    expect(kept.providerToken).toMatch(/^cus_\w+\|pm_\w+$/);
    const [customer, paymentMethod] = kept.providerToken!.split('|');
    expect(callsUnder(first.idempotencyKey)[0]?.body).toMatchObject({ customer, setup_future_usage: 'off_session' });
    // When a renewal charges the token, merchant-initiated
    const renewal = request({ card: undefined, providerToken: kept.providerToken, initiator: { type: 'merchant' } });
    const charged = approved(await stripe.authorize(renewal));
    // Then it was a merchant-initiated charge of that customer's card, under the renewal's own key
    expect(charged.providerToken).toBe(kept.providerToken);
    expect(callsUnder(renewal.idempotencyKey)[0]?.body).toMatchObject({
      customer,
      payment_method: paymentMethod,
      off_session: 'true',
      confirm: 'true',
    });
    expect(callsUnder(renewal.idempotencyKey)[0]?.body).not.toHaveProperty('error_on_requires_action');
    // And a second card kept for the same customer reuses its Stripe Customer
    const again = approved(await stripe.authorize(request({ storeFor: { customerReference, email: 'jane@example.com' } })));
    expect(again.providerToken!.split('|')[0]).toBe(customer);
    const customerCreates = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers');
    expect(customerCreates.filter((r) => JSON.stringify(r.body).includes(customerReference))).toMatchObject([
      { idempotencyKey: `${first.idempotencyKey}_customer` },
    ]);
  });

  it("the shopper's next payment with the token is customer-initiated: confirmed on-session, never waiting for 3-D Secure", async () => {
    // Prepare
    const kept = approved(await stripe.authorize(request({ storeFor: { customerReference: `cus_${randomUUID()}` } })));
    const [customer, paymentMethod] = kept.providerToken!.split('|');
    const next = request({ card: undefined, providerToken: kept.providerToken });
    // Act
    const charged = approved(await stripe.authorize(next));
    // Assess
    const sent = callsUnder(next.idempotencyKey)[0]?.body;
    expect(sent).toMatchObject({ customer, payment_method: paymentMethod, confirm: 'true', error_on_requires_action: 'true' });
    expect(sent).not.toHaveProperty('off_session');
    expect(sent).not.toHaveProperty('payment_method_data');
    expect(holdOf(charged.reference)).toMatchObject({ state: 'authorized', amount: 5000 });
  });

  it.each([
    ['merchant-initiated', { type: 'merchant' } as const],
    ['customer-initiated', undefined],
  ])('4000000000000341 is kept and approved, but a later %s charge declines', async (_kind, initiator) => {
    const kept = approved(
      await stripe.authorize(request({ card: card('4000000000000341'), storeFor: { customerReference: `cus_${randomUUID()}` } })),
    );
    const later = await stripe.authorize(request({ card: undefined, providerToken: kept.providerToken, initiator }));
    expect(later).toMatchObject({ outcome: 'declined', declineCode: 'generic_decline' });
  });

  it('refuses a token that is not a Stripe card-on-file token without a call', async () => {
    const attempt = request({ card: undefined, providerToken: 'tok_adyen_x' });
    expect(await stripe.authorize(attempt)).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(callsUnder(attempt.idempotencyKey)).toEqual([]);
  });
});

describe('capture, void and refund', () => {
  it('captures part of an authorization once per key', async () => {
    const { reference } = approved(await stripe.authorize(request()));
    const key = `${reference}_capture`;
    expect(await stripe.capture(reference, 3000, 'EUR', key)).toEqual({ ok: true, reference });
    expect(await stripe.capture(reference, 3000, 'EUR', key)).toEqual({ ok: true, reference });
    expect(holdOf(reference)).toMatchObject({ state: 'captured', captured: 3000 });
    expect(callsUnder(key).map((r) => [r.operation, (r.body as { amount_to_capture?: string }).amount_to_capture])).toEqual([
      ['capture', '3000'],
      ['capture', '3000'],
    ]);
    // A second capture under another key is refused, in Stripe's words: an authorization is captured once
    expect(await stripe.capture(reference, 1000, 'EUR', `${reference}_capture_2`)).toEqual({
      ok: false,
      reason: 'refused',
      message: 'This PaymentIntent could not be captured because it has a status of succeeded.',
    });
  });

  it('voids an authorization (again: still ok); a captured one cannot be voided', async () => {
    const { reference } = approved(await stripe.authorize(request()));
    expect(await stripe.void(reference, `${reference}_void`)).toEqual({ ok: true, reference });
    expect(await stripe.void(reference, `${reference}_void_again`)).toEqual({ ok: true, reference });
    expect(holdOf(reference)?.state).toBe('voided');
    const captured = approved(await stripe.authorize(request()));
    await stripe.capture(captured.reference, 5000, 'EUR', `${captured.reference}_capture`);
    expect(await stripe.void(captured.reference, `${captured.reference}_void`)).toEqual({
      ok: false,
      reason: 'refused',
      message: expect.stringMatching(/^You cannot cancel this PaymentIntent because it has a status of succeeded/),
    });
  });

  it('refunds in several parts up to the captured amount and refuses one beyond it', async () => {
    // Given 4000 captured of 5000
    const { reference } = approved(await stripe.authorize(request()));
    await stripe.capture(reference, 4000, 'EUR', `${reference}_capture`);
    // When three refunds use it up, one retried under its key
    const refunds = [];
    for (const [i, amount] of [1000, 1500, 1500].entries()) refunds.push(await stripe.refund(reference, amount, 'EUR', `ref_${reference}_${i}`));
    const retried = await stripe.refund(reference, 1000, 'EUR', `ref_${reference}_0`);
    // Then each is its own Stripe refund, the retry is the first one again, and nothing remains to refund
    expect(refunds.map((r) => r.ok && r.reference.startsWith('re_'))).toEqual([true, true, true]);
    expect(new Set(refunds.map((r) => r.ok && r.reference)).size).toBe(3);
    expect(retried).toEqual(refunds[0]);
    expect(holdOf(reference)).toMatchObject({ captured: 4000, refunded: 4000 });
    expect(await stripe.refund(reference, 1, 'EUR', `ref_${reference}_3`)).toEqual({
      ok: false,
      reason: 'refused',
      message: expect.stringMatching(/^Charge ch_\w+ has already been refunded\.$/),
    });
    expect(callsUnder(`ref_${reference}_1`)[0]).toMatchObject({
      operation: 'refund',
      path: '/v1/refunds',
      body: { payment_intent: reference, amount: '1500', metadata: { refund_id: `ref_${reference}_1` } },
    });
  });

  it('classes failed operations: outage → provider_down, lost answer → unknown (a retry under the key finishes it once)', async () => {
    const { reference } = approved(await stripe.authorize(request()));
    fake.inject('capture', { kind: 'status', status: 503 });
    expect(await stripe.capture(reference, 5000, 'EUR', `${reference}_c1`)).toEqual({ ok: false, reason: 'provider_down' });
    fake.inject('capture', { kind: 'accept_then_drop' }, 2);
    expect(await stripe.capture(reference, 5000, 'EUR', `${reference}_c2`)).toEqual({ ok: false, reason: 'unknown' });
    expect(await stripe.capture(reference, 5000, 'EUR', `${reference}_c2`)).toEqual({ ok: true, reference });
    expect(holdOf(reference)).toMatchObject({ state: 'captured', captured: 5000 });
  });
});

describe('lookup and reverse', () => {
  it('finds a declined attempt as declined, with and without the request', async () => {
    const attempt = request({ card: card('4000000000009995') });
    await stripe.authorize(attempt);
    const declined = { found: 'declined', declineCode: 'insufficient_funds' };
    expect(await stripe.lookup(attempt.idempotencyKey, undefined, attempt)).toEqual(declined);
    expect(await stripe.lookup(attempt.idempotencyKey)).toEqual(declined);
    // A reversal leaves a decline as it is
    expect(await stripe.reverse(attempt.idempotencyKey)).toMatchObject({ ok: true });
    expect(await stripe.lookup(attempt.idempotencyKey)).toEqual(declined);
  });

  it('answers unknown when Stripe cannot be read', async () => {
    fake.inject('lookup', { kind: 'status', status: 503 });
    expect(await stripe.lookup(`pay_${randomUUID()}_1`)).toEqual({ found: 'unknown' });
  });

  it('reads a just-made authorization from the list, before Search has indexed it', async () => {
    const attempt = request();
    const { reference } = approved(await stripe.authorize(attempt));
    const before = fake.requests.length;
    expect(await stripe.lookup(attempt.idempotencyKey)).toMatchObject({ found: 'authorized', reference });
    expect(fake.requests.slice(before).map((r) => r.path)).toEqual(['/v1/payment_intents']);
  });

  it('finds an authorization older than the list window through Search', async () => {
    // Given a Stripe account whose authorization was made an hour ago (long indexed by Search)
    const old = await startStripeFake();
    try {
      const connector = connectorAt(old.url);
      const attempt = request();
      const { reference } = approved(await connector.authorize(attempt));
      old.backdate(60 * 60_000);
      // When it is looked up by key
      const found = await connector.lookup(attempt.idempotencyKey);
      // Then the list (last 10 minutes) missed it and Search found it
      expect(found).toMatchObject({ found: 'authorized', reference });
      expect(old.requests.slice(-2).map((r) => r.path)).toEqual(['/v1/payment_intents', '/v1/payment_intents/search']);
    } finally {
      await old.close();
    }
  });

  it('closes a key nothing used yet: a request arriving later under it cannot authorize', async () => {
    // Given an attempt whose request has not reached Stripe yet
    const attempt = request();
    // When it is reversed first
    expect(await stripe.reverse(attempt.idempotencyKey)).toMatchObject({ ok: true });
    // Then the late request is refused (the key is taken) and nothing is held under it
    expect(await stripe.authorize(attempt)).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(fake.holds().filter((h) => h.idempotencyKey === attempt.idempotencyKey)).toEqual([]);
    expect(await stripe.lookup(attempt.idempotencyKey, undefined, attempt)).toEqual({ found: 'none' });
  });

  it('cannot reverse a captured authorization', async () => {
    const attempt = request();
    const { reference } = approved(await stripe.authorize(attempt));
    await stripe.capture(reference, 5000, 'EUR', `${reference}_capture`);
    expect(await stripe.reverse(attempt.idempotencyKey)).toEqual({ ok: false, reason: 'processing_error' });
    expect(holdOf(reference)?.state).toBe('captured');
  });
});

it('every call that moves money carries our idempotency key', async () => {
  // Given one payment through authorize, capture and refund, and one through authorize and void
  const before = fake.requests.length;
  const paid = request();
  const { reference } = approved(await stripe.authorize(paid));
  await stripe.capture(reference, 5000, 'EUR', `${reference}_capture`);
  await stripe.refund(reference, 500, 'EUR', `ref_${reference}`);
  const voided = request();
  const other = approved(await stripe.authorize(voided));
  await stripe.void(other.reference, `${other.reference}_void`);
  // Then every POST the fake received carried the key we chose for it
  expect(
    fake.requests
      .slice(before)
      .filter((r) => r.method === 'POST')
      .map((r) => [r.operation, r.idempotencyKey]),
  ).toEqual([
    ['authorize', paid.idempotencyKey],
    ['capture', `${reference}_capture`],
    ['refund', `ref_${reference}`],
    ['authorize', voided.idempotencyKey],
    ['void', `${other.reference}_void`],
  ]);
});

describe('the error map', () => {
  const cases: Array<[StripeFailure, FailureClass, string]> = [
    [{ status: 402, type: 'card_error', code: 'card_declined', declineCode: 'try_again_later' }, 'soft', 'try_again_later'],
    [{ status: 402, type: 'card_error', code: 'card_declined', declineCode: 'issuer_not_available' }, 'soft', 'issuer_not_available'],
    [{ status: 402, type: 'card_error', code: 'card_declined', declineCode: 'processing_error' }, 'soft', 'processing_error'],
    [{ status: 402, type: 'card_error', code: 'card_declined', declineCode: 'reenter_transaction' }, 'soft', 'reenter_transaction'],
    [{ status: 402, type: 'card_error', code: 'processing_error' }, 'soft', 'processing_error'],
    [{ status: 402, type: 'card_error', code: 'card_declined', declineCode: 'insufficient_funds' }, 'hard', 'insufficient_funds'],
    [{ status: 402, type: 'card_error', code: 'incorrect_cvc' }, 'hard', 'incorrect_cvc'],
    [{ status: 402, type: 'card_error', code: 'card_declined' }, 'hard', 'generic_decline'],
    [{ status: 409, type: 'invalid_request_error', code: 'idempotency_key_in_use' }, 'unknown', 'processing_error'],
    [{ status: 400, type: 'idempotency_error' }, 'soft', 'processing_error'],
    [{ status: 429, type: 'invalid_request_error', code: 'rate_limit' }, 'outage', 'processing_error'],
    [{ status: 400, type: 'invalid_request_error', code: 'rate_limit' }, 'outage', 'processing_error'],
    [{ status: 409, type: 'invalid_request_error', code: 'lock_timeout' }, 'outage', 'processing_error'],
    [{ status: 500, type: 'api_error', code: 'processing_error' }, 'soft', 'processing_error'],
    [{ status: 500, type: 'api_error' }, 'unknown', 'processing_error'],
    [{ status: 504 }, 'unknown', 'processing_error'],
    [{ status: 503, type: 'api_error' }, 'outage', 'processing_error'],
    [{ status: 401, type: 'invalid_request_error' }, 'outage', 'processing_error'],
    [{ status: 403, type: 'invalid_request_error' }, 'outage', 'processing_error'],
    [{ status: 400, type: 'invalid_request_error', code: 'payment_intent_unexpected_state' }, 'soft', 'processing_error'],
    [{ status: 400 }, 'soft', 'processing_error'],
    [{ status: 404 }, 'soft', 'processing_error'],
  ];

  it.each(cases)('%j → %s (%s)', (failure, expectedClass, declineCode) => {
    expect(mapStripeFailure(failure)).toEqual({ class: expectedClass, declineCode });
  });

  it('has no row that no case reaches, and answers anything unlisted as unknown', () => {
    const reached = new Set(cases.map(([failure]) => ruleFor(failure)));
    expect(ERROR_MAP.filter((row) => !reached.has(row))).toEqual([]);
    expect(mapStripeFailure({ status: 418 })).toEqual({ class: 'unknown', declineCode: 'processing_error' });
  });

  it.each([
    ['ECONNREFUSED', 'outage'],
    ['ENOTFOUND', 'outage'],
    ['EADDRNOTAVAIL', 'outage'],
    ['ETIMEDOUT', 'unknown'],
    ['ECONNRESET', 'unknown'],
    ['EPIPE', 'unknown'],
  ] as const)('a connection error %s is %s', (code, expectedClass) => {
    const error = new Stripe.errors.StripeConnectionError({ message: 'connection', detail: Object.assign(new Error(code), { code }) });
    expect(classify(error).class).toBe(expectedClass);
  });

  it('classes an error that is not Stripe’s (an abort) as unknown', () => {
    expect(classify(new DOMException('The operation was aborted', 'AbortError')).class).toBe('unknown');
  });
});
