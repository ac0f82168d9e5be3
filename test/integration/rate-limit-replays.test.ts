import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { clock } from '../../shared/model/clock.ts';
import { newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

// The deployment's create limit lowered to 5 a minute, before the handler reads its configuration.
vi.hoisted(() => {
  process.env.PAYMENTS_PER_MINUTE = '5';
});

/** Runs `act` with the clock fixed inside one window, 45 s from its start. */
async function inOneWindow<T>(act: () => Promise<T>): Promise<T> {
  const realNow = clock.now;
  const windowStart = Math.floor(realNow() / 60_000) * 60_000;
  clock.now = () => windowStart + 45_000;
  try {
    return await act();
  } finally {
    clock.now = realNow;
  }
}

describe('idempotent replays and the create limit (PAYMENTS_PER_MINUTE=5)', () => {
  it('answers ten replays of each of five creates with the stored 200, uncounted, and still refuses a sixth create', async () => {
    // Prepare: one merchant whose window is used up by five creates, each with its own key
    const { apiKey } = await newMerchant();
    const creates = Array.from({ length: 5 }, () => ({ key: randomUUID(), body: paymentBody() }));
    const { firsts, replays, sixth } = await inOneWindow(async () => {
      const firsts = await Promise.all(creates.map(({ key, body }) => payments.create(apiKey, body, { 'Idempotency-Key': key })));
      // Act: ten replays of each create, all at once; then a sixth new create
      const replays = await Promise.all(
        creates.flatMap(({ key, body }, i) =>
          Array.from({ length: 10 }, async () => ({ i, res: await payments.create(apiKey, body, { 'Idempotency-Key': key }) })),
        ),
      );
      const sixth = await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': randomUUID() });
      return { firsts, replays, sixth };
    });
    // Assess: every replay is its create's stored answer; the window still holds the five creates only
    expect(firsts.map((f) => f.status)).toEqual([200, 200, 200, 200, 200]);
    expect(replays).toHaveLength(50);
    for (const { i, res } of replays) {
      expect(res.status).toBe(200);
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(res.body).toEqual(firsts[i]!.body);
      expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' });
    }
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toMatchObject({ type: 'rate_limit_error', message: 'Rate limit exceeded (5/min)' });
    expect(sixth.headers['idempotent-replayed']).toBeUndefined();
  });

  it('still counts a keyed request that is no replay: a bad body, and a used key with another body', async () => {
    // Prepare: three creates in one window
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    const { badBody, reusedKey, sixth } = await inOneWindow(async () => {
      await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': key });
      await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': randomUUID() });
      await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': randomUUID() });
      // Act: two refused requests, then a new create (the window's sixth request)
      const badBody = await payments.create(apiKey, paymentBody({ amount: -1 }), { 'Idempotency-Key': randomUUID() });
      const reusedKey = await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': key });
      const sixth = await payments.create(apiKey, paymentBody(), { 'Idempotency-Key': randomUUID() });
      return { badBody, reusedKey, sixth };
    });
    // Assess
    expect(badBody.status).toBe(400);
    expect(badBody.headers['x-ratelimit-remaining']).toBe('1');
    expect(reusedKey.body.error.code).toBe('idempotency_key_reused');
    expect(reusedKey.headers['x-ratelimit-remaining']).toBe('0');
    expect(sixth.status).toBe(429);
  });
});
