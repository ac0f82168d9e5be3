import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clock } from '../../shared/model/clock.ts';
import { newId } from '../../shared/model/ids.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { cardFingerprint } from '../../shared/model/cards.ts';
import { readSecret } from '../../shared/secrets.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { velocityKeys } from '../../shared/store/keys.ts';
import { VELOCITY_WINDOW_MS } from '../../shared/store/velocity.ts';
import { newMerchant } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';

/** The velocity count of a card in the hour of `at` (what risk reads), 0 when none. */
async function cardAttemptsInHourOf(cardNumber: string, at: number): Promise<number> {
  const fingerprint = cardFingerprint(await readSecret('fingerprints'), cardNumber);
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: velocityKeys.window(fingerprint, at - (at % VELOCITY_WINDOW_MS)) }));
  return Number(out.Item?.count ?? 0);
}

/** A window's 100 creates (the default limit), in parallel batches of 10; their answers. */
async function hundredCreates(apiKey: string) {
  const answers = [];
  for (let batch = 0; batch < 10; batch++) {
    answers.push(...(await Promise.all(Array.from({ length: 10 }, () => payments.create(apiKey, paymentBody())))));
  }
  return answers;
}

describe('creating a payment', () => {
  it('authorizes a card: 200 succeeded with provider, routing decision, risk score and a stored card summary', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await payments.create(apiKey, paymentBody({ metadata: { order: '1042' } }, CARDS.approved));
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^pay_[0-9a-z]{26}$/),
      object: 'payment',
      status: 'succeeded',
      amount: 2500,
      currency: 'USD',
      provider: expect.stringMatching(/^(stripe|adyen|braintree)$/),
      routing_decision: {
        strategy: 'smart',
        reason: expect.stringContaining('Smart routing chose'),
        alternatives_considered: expect.any(Array),
        latency_ms: expect.any(Number),
      },
      risk_score: expect.any(Number),
      payment_method: { type: 'card', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 } },
      metadata: { order: '1042' },
      livemode: false,
      created_at: expect.stringMatching(/Z$/),
    });
    expect(res.body.routing_decision.alternatives_considered).toHaveLength(2);
    expect(res.body.routing_decision.alternatives_considered).not.toContain(res.body.provider);
    expect(res.body.risk_score).toBeLessThan(85);
    expect((await payments.get(apiKey, res.body.id)).body).toEqual(res.body);
  });

  it('links the payment to the merchant’s customer with the same e-mail', async () => {
    const { apiKey, customerId } = await newMerchant();
    const res = await payments.create(apiKey, paymentBody({ customer: { email: 'JANE@example.com' } }));
    expect(res.body.customer_id).toBe(customerId);
  });

  it.each([
    ['generic_decline', CARDS.genericDecline],
    ['insufficient_funds', CARDS.insufficientFunds],
    ['lost_card', CARDS.lostCard],
    ['stolen_card', CARDS.stolenCard],
    ['expired_card', CARDS.expiredCard],
    ['incorrect_cvc', CARDS.incorrectCvc],
  ])('declines %s with 402 and keeps the attempt as failed', async (declineCode, card) => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, paymentBody({}, card));
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'card_error', code: 'card_declined', message: 'Payment declined', decline_code: declineCode });
    const stored = await payments.get(apiKey, res.body.error.payment_id);
    expect(stored.body).toMatchObject({ status: 'failed', decline_code: declineCode });
    expect(stored.body.routing_decision.alternatives_considered).toHaveLength(2);
  });

  it('blocks the known fraudulent card with risk 100 before any provider sees it', async () => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, paymentBody({}, CARDS.fraudulent));
    expect(res.status).toBe(402);
    expect(res.body.error.decline_code).toBe('fraudulent');
    const stored = await payments.get(apiKey, res.body.error.payment_id);
    expect(stored.body).toMatchObject({ status: 'failed', risk_score: 100, provider: null });
  });

  it('fails over when the first provider answers processing_error, and says so', async () => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, paymentBody({}, CARDS.processingError));
    expect(res.status).toBe(200);
    const [first] = res.body.routing_decision.alternatives_considered;
    expect(res.body.routing_decision.reason).toContain(`${first} answered processing_error, so the payment failed over to ${res.body.provider}`);
  });

  it('approves any other Luhn-valid card, e.g. a Mastercard', async () => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, paymentBody({}, CARDS.mastercard));
    expect(res.status).toBe(200);
    expect(res.body.payment_method.card).toMatchObject({ brand: 'mastercard', last4: '4444' });
  });

  it('reads a 2-digit year as 20YY', async () => {
    const { apiKey } = await newMerchant();
    const body = paymentBody();
    body.payment_method.card.exp_year = 34;
    const res = await payments.create(apiKey, body);
    expect(res.body.payment_method.card.exp_year).toBe(2034);
  });

  const card = (patch: Record<string, unknown>) => {
    const body = paymentBody();
    Object.assign(body.payment_method.card, patch);
    return body;
  };
  it.each([
    ['no amount', paymentBody({ amount: undefined }), 'amount'],
    ['a zero amount', paymentBody({ amount: 0 }), 'amount'],
    ['an amount over 99,999,999', paymentBody({ amount: 100_000_000 }), 'amount'],
    ['a fractional amount', paymentBody({ amount: 10.5 }), 'amount'],
    ['an amount as a string', paymentBody({ amount: '2500' }), 'amount'],
    ['an unknown currency', paymentBody({ currency: 'XYZ' }), 'currency'],
    ['no currency', paymentBody({ currency: undefined }), 'currency'],
    ['an unknown routing', paymentBody({ routing: 'cheapest' }), 'routing'],
    ['another payment method', paymentBody({ payment_method: { type: 'bank', card: {} } }), 'payment_method.type'],
    ['a card failing Luhn', card({ number: '4242424242424241' }), 'payment_method.card.number'],
    ['an 11-digit card', card({ number: '42424242424' }), 'payment_method.card.number'],
    ['a card with spaces', card({ number: '4242 4242 4242 4242' }), 'payment_method.card.number'],
    ['month 13', card({ exp_month: 13 }), 'payment_method.card.exp_month'],
    ['month 0', card({ exp_month: 0 }), 'payment_method.card.exp_month'],
    ['a 3-digit year', card({ exp_year: 203 }), 'payment_method.card.exp_year'],
    ['an expired card', card({ exp_year: 2020 }), 'payment_method.card.exp_year'],
    ['a 2-digit CVC', card({ cvc: '12' }), 'payment_method.card.cvc'],
    ['a numeric CVC', card({ cvc: 123 }), 'payment_method.card.cvc'],
    ['a phone without +', paymentBody({ customer: { phone: '4155550123' } }), 'customer.phone'],
    ['a bad customer e-mail', paymentBody({ customer: { email: 'jane' } }), 'customer.email'],
    ['51 metadata keys', paymentBody({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }), 'metadata'],
  ])('answers 400 to %s, naming the field', async (_case, body, param) => {
    const { apiKey } = await newMerchant();
    const res = await payments.create(apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/^Invalid request body: ./), param });
  });

  it('takes a currency in any case and answers it uppercase', async () => {
    const { apiKey } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody({ currency: 'eUr' }))).body.currency).toBe('EUR');
  });

  it('answers the 101st create in a minute with 429 and rate-limit headers', async () => {
    // Prepare: one merchant, one fixed window
    const { apiKey } = await newMerchant();
    const realNow = clock.now;
    const windowStart = Math.floor(realNow() / 60_000) * 60_000;
    clock.now = () => windowStart + 45_000;
    try {
      // Act: 100 creates (in parallel batches), then the 101st
      const answers = await hundredCreates(apiKey);
      const limited = await payments.create(apiKey, paymentBody());
      // Assess
      expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
      expect(answers.map((a) => a.headers['x-ratelimit-limit'])).toEqual(Array(100).fill('100'));
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', message: 'Rate limit exceeded (100/min)' });
      expect(limited.headers['retry-after']).toBe('15');
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    } finally {
      clock.now = realNow;
    }
  });

  it('stores nothing under the Idempotency-Key of a create it refuses: the same key creates the payment in the next window', async () => {
    // Prepare: a window whose 100 creates are used up
    const { apiKey } = await newMerchant();
    const realNow = clock.now;
    const windowStart = Math.floor(realNow() / 60_000) * 60_000;
    clock.now = () => windowStart + 45_000;
    try {
      await hundredCreates(apiKey);
      const key = randomUUID();
      const body = paymentBody({ amount: 4321 });
      // Act: the same request twice in this window, then once in the next
      const refused = await payments.create(apiKey, body, { 'Idempotency-Key': key });
      const refusedAgain = await payments.create(apiKey, body, { 'Idempotency-Key': key });
      const afterRefusals = await payments.list(apiKey, { limit: '1' });
      const cardAttempts = await cardAttemptsInHourOf(body.payment_method.card.number, windowStart + 45_000);
      clock.now = () => windowStart + 61_000;
      const next = await payments.create(apiKey, body, { 'Idempotency-Key': key });
      // Assess: refused, not held (no 409), not replayed, nothing written (no payment, no velocity); then created once
      expect([refused.status, refusedAgain.status]).toEqual([429, 429]);
      expect(refusedAgain.headers['idempotent-replayed']).toBeUndefined();
      expect(refusedAgain.headers['x-ratelimit-remaining']).toBe('0');
      expect(afterRefusals.body.total).toBe(100);
      expect(cardAttempts).toBe(0);
      expect(next.status).toBe(200);
      expect(next.headers['idempotent-replayed']).toBeUndefined();
      expect(next.headers['x-ratelimit-remaining']).toBe('99');
      expect(next.body).toMatchObject({ amount: 4321, status: 'succeeded' });
    } finally {
      clock.now = realNow;
    }
  });

  it('carries the rate-limit headers on a 401 too, with nothing used up', async () => {
    const res = await payments.create('sk_test_unknown', paymentBody());
    expect(res.status).toBe(401);
    expect(res.headers).toMatchObject({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '100',
      'x-ratelimit-reset': expect.stringMatching(/^\d{10}$/),
    });
  });

  it('yields exactly one payment for 20 parallel creates with one Idempotency-Key; the rest replay or get 409', async () => {
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const body = paymentBody();
    const answers = await Promise.all(Array.from({ length: 20 }, () => payments.create(apiKey, body, { 'Idempotency-Key': key })));
    const listed = await payments.list(apiKey, { limit: '100' });
    expect(listed.body.total).toBe(1);
    const ok = answers.filter((a) => a.status === 200);
    expect(new Set(ok.map((a) => a.body.id))).toEqual(new Set([listed.body.data[0].id]));
    expect(answers.every((a) => a.status === 200 || (a.status === 409 && a.body.error.code === 'idempotency_key_in_use'))).toBe(true);
    const replay = await payments.create(apiKey, body, { 'Idempotency-Key': key });
    const otherBody = await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': key });
    expect(otherBody.status).toBe(400);
    expect(otherBody.body.error.code).toBe('idempotency_key_reused');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(listed.body.data[0].id);
  });

  it('replays a decline for the same Idempotency-Key instead of trying the card again', async () => {
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const first = await payments.create(apiKey, paymentBody({}, CARDS.genericDecline), { 'Idempotency-Key': key });
    const again = await payments.create(apiKey, paymentBody({}, CARDS.genericDecline), { 'Idempotency-Key': key });
    expect(again.status).toBe(402);
    expect(again.body.error.payment_id).toBe(first.body.error.payment_id);
    expect((await payments.list(apiKey)).body.total).toBe(1);
  });

  it("answers 404 for another merchant's payment and for malformed ids", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const theirs = await payments.create(b.apiKey, paymentBody());
    expect((await payments.get(a.apiKey, theirs.body.id)).status).toBe(404);
    expect((await payments.capture(a.apiKey, theirs.body.id)).status).toBe(404);
    expect((await payments.get(a.apiKey, newId('payment'))).status).toBe(404);
    expect((await payments.get(a.apiKey, 'pay_nope')).status).toBe(404);
    expect((await payments.get(a.apiKey, newId('customer'))).status).toBe(404);
  });
});
