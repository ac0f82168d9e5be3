import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as getBalance } from '../../functions/balance/get.ts';
import { availableSortKey, balanceAdd, captureCounters, dayOf, refundCounters, unplannedRefundCounters } from '../../shared/store/ledger.ts';
import { db } from '../../shared/store/client.ts';
import { counterShards, writeShardsFor } from '../../shared/store/write-shards.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';
import { shardsRecordKey, withCounterShards } from '../support/shards.ts';

async function authorized(amount = 5000) {
  const { apiKey } = await newMerchant();
  const created = await payments.create(apiKey, paymentBody({ amount }));
  return { apiKey, id: created.body.id as string };
}

async function captured(amount = 5000) {
  const p = await authorized(amount);
  await payments.capture(p.apiKey, p.id);
  return p;
}

describe('payment state machine', () => {
  it('captures the whole authorization by default', async () => {
    const { apiKey, id } = await authorized();
    const res = await payments.capture(apiKey, id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'captured', amount: 5000, amount_captured: 5000 });
  });

  it('captures part of the authorization', async () => {
    const { apiKey, id } = await authorized();
    const res = await payments.capture(apiKey, id, { amount: 3000 });
    expect(res.body).toMatchObject({ status: 'captured', amount: 5000, amount_captured: 3000 });
  });

  it('refuses to capture more than was authorized', async () => {
    const { apiKey, id } = await authorized();
    const res = await payments.capture(apiKey, id, { amount: 5001 });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('amount');
    expect((await payments.get(apiKey, id)).body.status).toBe('succeeded');
  });

  it('voids an authorization', async () => {
    const { apiKey, id } = await authorized();
    const res = await payments.void(apiKey, id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'voided' });
  });

  it('refunds partially, repeatedly, up to the captured amount, then refuses', async () => {
    const { apiKey, id } = await authorized(5000);
    await payments.capture(apiKey, id, { amount: 4000 });
    const first = await payments.refund(apiKey, id, { amount: 1500, reason: 'requested_by_customer' });
    const second = await payments.refund(apiKey, id, { amount: 1500 });
    const tooMuch = await payments.refund(apiKey, id, { amount: 1001 });
    const rest = await payments.refund(apiKey, id);
    const nothingLeft = await payments.refund(apiKey, id);
    expect(first.body).toMatchObject({
      id,
      status: 'refunded',
      amount: 1500,
      amount_refunded: 1500,
      refund_id: expect.stringMatching(/^ref_[0-9a-z]{26}$/),
    });
    expect(second.body).toMatchObject({ amount: 1500, amount_refunded: 3000 });
    expect(second.body.refund_id).not.toBe(first.body.refund_id);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error.param).toBe('amount');
    expect(rest.body).toMatchObject({ amount: 1000, amount_refunded: 4000 });
    expect(nothingLeft.status).toBe(400);
    expect(nothingLeft.body.error.code).toBe('invalid_state');
    expect((await payments.get(apiKey, id)).body).toMatchObject({ status: 'refunded', amount_captured: 4000, amount_refunded: 4000 });
  });

  it('refuses an unknown refund reason', async () => {
    const { apiKey, id } = await captured();
    const res = await payments.refund(apiKey, id, { reason: 'changed_my_mind' });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('reason');
  });

  const illegal: Array<[string, () => Promise<{ apiKey: string; id: string }>, 'capture' | 'void' | 'refund']> = [
    ['refund an uncaptured payment', () => authorized(), 'refund'],
    ['capture twice', () => captured(), 'capture'],
    ['void a captured payment', () => captured(), 'void'],
    [
      'capture a voided payment',
      async () => {
        const p = await authorized();
        await payments.void(p.apiKey, p.id);
        return p;
      },
      'capture',
    ],
    [
      'refund a voided payment',
      async () => {
        const p = await authorized();
        await payments.void(p.apiKey, p.id);
        return p;
      },
      'refund',
    ],
    [
      'void twice',
      async () => {
        const p = await authorized();
        await payments.void(p.apiKey, p.id);
        return p;
      },
      'void',
    ],
    [
      'capture a refunded payment',
      async () => {
        const p = await captured();
        await payments.refund(p.apiKey, p.id, { amount: 100 });
        return p;
      },
      'capture',
    ],
    [
      'void a refunded payment',
      async () => {
        const p = await captured();
        await payments.refund(p.apiKey, p.id, { amount: 100 });
        return p;
      },
      'void',
    ],
  ];
  it.each(illegal)('answers 400 invalid_state to: %s', async (_case, given, move) => {
    const { apiKey, id } = await given();
    const before = (await payments.get(apiKey, id)).body;
    const res = await payments[move](apiKey, id);
    expect(res.status).toBe(400);
    // The reason names the payment's state and the refused move, e.g. "a voided payment cannot be captured".
    const past = { capture: 'captured', void: 'voided', refund: 'refunded' }[move];
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_state',
      message: expect.stringMatching(
        new RegExp(`^Invalid request body: (an? ${before.status} payment cannot be ${past}|the payment has been refunded in full)$`),
      ),
    });
    expect((await payments.get(apiKey, id)).body).toEqual(before);
  });

  it.each(['capture', 'void', 'refund'] as const)('answers 400 invalid_state to %s of a declined payment', async (move) => {
    const { apiKey } = await newMerchant();
    const declined = await payments.create(apiKey, paymentBody({}, CARDS.genericDecline));
    const res = await payments[move](apiKey, declined.body.error.payment_id);
    expect(res.body.error.code).toBe('invalid_state');
  });
});

describe('payments under concurrency', () => {
  it('never refunds more than was captured: 20 parallel refunds of 1,000 on a 5,000 capture', async () => {
    const { apiKey, id } = await captured(5000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => payments.refund(apiKey, id, { amount: 1000 })));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(5);
    expect(answers.filter((a) => a.status === 400).every((a) => ['invalid_state', 'amount_too_large'].includes(a.body.error.code))).toBe(true);
    expect(new Set(ok.map((a) => a.body.refund_id)).size).toBe(5);
    expect((await payments.get(apiKey, id)).body).toMatchObject({ status: 'refunded', amount_refunded: 5000 });
  });

  it('never refunds more than was captured: 20 parallel full refunds', async () => {
    const { apiKey, id } = await captured(5000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => payments.refund(apiKey, id)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect((await payments.get(apiKey, id)).body.amount_refunded).toBe(5000);
  });

  it('records every refund of a storm on several payments: no 500, and balance and revenue match what was refunded', async () => {
    // Prepare: one merchant, four captures of 5,000
    const { apiKey } = await newMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await payments.create(apiKey, paymentBody({ amount: 5000 }));
      await payments.capture(apiKey, created.body.id);
      ids.push(created.body.id);
    }
    // Act: ten refunds of 700 on each payment, all at once (seven fit in each)
    const answers = await Promise.all(
      ids.flatMap((id) => Array.from({ length: 10 }, async () => ({ id, res: await payments.refund(apiKey, id, { amount: 700 }) }))),
    );
    // Assess
    expect(answers.filter((a) => a.res.status === 200)).toHaveLength(28);
    expect(answers.filter((a) => a.res.status === 400).every((a) => a.res.body.error.code === 'amount_too_large')).toBe(true);
    for (const id of ids) {
      const ok = answers.filter((a) => a.id === id && a.res.status === 200).map((a) => a.res.body.amount_refunded as number);
      expect((await payments.get(apiKey, id)).body.amount_refunded).toBe(4900);
      expect(Math.max(...ok)).toBe(4900);
      expect(ok.every((n) => n >= 700 && n <= 4900)).toBe(true);
    }
    const balance = (await invokeHttp(getBalance, apiEvent({ method: 'GET', path: '/api/balance', headers: bearer(apiKey) }))).body;
    expect(balance).toEqual({
      object: 'balance',
      livemode: false,
      available: [{ amount: 0, currency: 'USD' }],
      pending: [{ amount: 4 * 100, currency: 'USD' }],
    });
  });

  it('shows a refund recorded against available funds alone as taken from pending ones', async () => {
    // Prepare: a capture of 5,000 today, and a refund of 1,200 recorded the way a contended refund falls back to
    const { apiKey, merchantId } = await newMerchant();
    const day = dayOf(new Date().toISOString());
    await db.send(new TransactWriteCommand({ TransactItems: captureCounters(testOwner(merchantId), 'USD', 5000, day) }));
    await db.send(new TransactWriteCommand({ TransactItems: unplannedRefundCounters(testOwner(merchantId), 'USD', 1200, day) }));
    // Act
    const balance = (await invokeHttp(getBalance, apiEvent({ method: 'GET', path: '/api/balance', headers: bearer(apiKey) }))).body;
    // Assess
    expect(balance).toEqual({
      object: 'balance',
      livemode: false,
      available: [{ amount: 0, currency: 'USD' }],
      pending: [{ amount: 3800, currency: 'USD' }],
    });
  });

  it('plans a refund beyond the balance as one write per cell, whichever shards hold the funds', async () => {
    // counters on one shard (the default limit), and over ten, as a deployment allowing 30,000 payments a minute
    const oneShard = { ...counterShards };
    const tenShards = writeShardsFor(10, shardsRecordKey());
    for (const [shards, funded] of [
      [oneShard, [0]],
      [tenShards, [0, 1, 2]],
      [tenShards, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]],
    ] as const) {
      for (let round = 0; round < 10; round++) {
        // Prepare: 100 available on each funded shard, and a refund of 500 more than that (money already settled)
        const { apiKey, merchantId } = await newMerchant();
        await db.send(
          new TransactWriteCommand({
            TransactItems: funded.map((shard) => balanceAdd(testOwner(merchantId), availableSortKey('USD'), { amount: 100 }, shard)),
          }),
        );
        const refund = funded.length * 100 + 500;
        // Act: the planned counters, committed as the refund's transaction would
        const { balance, items } = await withCounterShards(shards, async () => {
          const items = await refundCounters(testOwner(merchantId), 'USD', refund, dayOf(new Date().toISOString()));
          await db.send(new TransactWriteCommand({ TransactItems: items }));
          return { balance: (await invokeHttp(getBalance, apiEvent({ method: 'GET', path: '/api/balance', headers: bearer(apiKey) }))).body, items };
        });
        // Assess: one conditioned write per funded cell, the uncovered 500 among them; the balance short by exactly that
        const balanceWrites = items.filter((item) => String(item.Update?.Key?.pk).includes('#BAL#'));
        expect(balanceWrites).toHaveLength(funded.length);
        expect(balanceWrites.every((item) => item.Update?.ConditionExpression === 'amount >= :x')).toBe(true);
        expect(balance.available).toEqual([{ amount: -500, currency: 'USD' }]);
      }
    }
  });

  it('refunds what is left to a refund without amount that races a partial one, never answering amount_too_large', async () => {
    for (let round = 0; round < 8; round++) {
      const { apiKey, id } = await captured(1000);
      const [partial, rest] = await Promise.all([payments.refund(apiKey, id, { amount: 300 }), payments.refund(apiKey, id, {})]);
      expect(rest.status).toBe(200);
      const refundedByAnswers = [partial, rest].filter((a) => a.status === 200).reduce((sum, a) => sum + (a.body.amount as number), 0);
      expect(refundedByAnswers).toBe(1000);
      if (partial.status !== 200) expect(partial.body.error.code).toBe('invalid_state');
      expect((await payments.get(apiKey, id)).body.amount_refunded).toBe(1000);
    }
  });

  it('applies exactly one of a racing capture and void', async () => {
    for (let round = 0; round < 5; round++) {
      const { apiKey, id } = await authorized();
      const keys = { capture: { 'Idempotency-Key': `c-${round}-${id}` }, void: { 'Idempotency-Key': `v-${round}-${id}` } };
      const [capture, voided] = await Promise.all([payments.capture(apiKey, id, {}, keys.capture), payments.void(apiKey, id, keys.void)]);
      const winners = [capture, voided].filter((a) => a.status === 200);
      expect(winners).toHaveLength(1);
      const loser = [capture, voided].find((a) => a.status !== 200)!;
      // While the winner's provider call runs the loser is told to retry (409, nothing stored for its key); after, invalid_state.
      expect(loser.body.error.code).toBe(loser.status === 409 ? 'operation_in_progress' : 'invalid_state');
      if (loser.status === 409) expect(loser.body.error.message).toMatch(/^Operation in progress: another operation on this payment/);
      const loserRetried = loser === capture ? await payments.capture(apiKey, id, {}, keys.capture) : await payments.void(apiKey, id, keys.void);
      expect(loserRetried.status).toBe(400);
      expect(loserRetried.body.error.code).toBe('invalid_state');
      const final = (await payments.get(apiKey, id)).body;
      expect(final.status).toBe(winners[0]!.body.status);
      expect(final.amount_captured).toBe(final.status === 'captured' ? 5000 : 0);
    }
  });
});
