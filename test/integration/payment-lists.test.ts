import { describe, expect, it } from 'vitest';
import { clock } from '../../shared/model/clock.ts';
import { withFault } from '../support/faults.ts';
import { newMerchant } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';

const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((p) => p.id);

describe('listing payments', () => {
  it('lists payments made at once in created_at order, slow providers or not', async () => {
    // Prepare: eight creates at the same moment (their authorizations end in any order)
    const { apiKey } = await newMerchant();
    await Promise.all(Array.from({ length: 8 }, () => payments.create(apiKey, paymentBody())));
    // Act
    const listed = (await payments.list(apiKey, { limit: '100' })).body.data as Array<{ created_at: string }>;
    // Assess: newest first by the id is newest first by created_at too
    const times = listed.map((p) => p.created_at);
    expect(times).toHaveLength(8);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('pages newest first with a filter, and total counts every match', async () => {
    // Prepare: 7 USD and 3 EUR payments, one USD declined
    const { apiKey } = await newMerchant();
    const usd: string[] = [];
    for (let i = 0; i < 7; i++) usd.push((await payments.create(apiKey, paymentBody({ amount: 1000 + i }))).body.id);
    for (let i = 0; i < 3; i++) await payments.create(apiKey, paymentBody({ currency: 'EUR' }));
    const declined = await payments.create(apiKey, paymentBody({}, CARDS.genericDecline));
    const newestUsd = [declined.body.error.payment_id, ...usd.reverse()];
    // Act
    const page1 = await payments.list(apiKey, { currency: 'usd', limit: '3' });
    const page2 = await payments.list(apiKey, { currency: 'USD', limit: '3', starting_after: ids(page1)[2]! });
    const page3 = await payments.list(apiKey, { currency: 'USD', limit: '3', starting_after: ids(page2)[2]! });
    const back = await payments.list(apiKey, { currency: 'USD', limit: '3', ending_before: ids(page3)[0]! });
    const all = await payments.list(apiKey, { limit: '100' });
    const succeededUsd = await payments.list(apiKey, { currency: 'USD', status: 'succeeded' });
    const failed = await payments.list(apiKey, { status: 'failed' });
    // Assess
    expect(ids(page1)).toEqual(newestUsd.slice(0, 3));
    expect(page1.body).toMatchObject({ has_more: true, total: 8 });
    expect(ids(page2)).toEqual(newestUsd.slice(3, 6));
    expect(ids(page3)).toEqual(newestUsd.slice(6, 8));
    expect(page3.body.has_more).toBe(false);
    expect(ids(back)).toEqual(newestUsd.slice(3, 6));
    expect(all.body.total).toBe(11);
    expect(all.body.data).toHaveLength(11);
    expect(succeededUsd.body.total).toBe(7);
    expect(ids(failed)).toEqual([declined.body.error.payment_id]);
    expect(page1.body.data[0]).toMatchObject({ id: newestUsd[0], status: 'failed', amount: 2500, currency: 'USD' });
  });

  it('filters by provider, customer e-mail and creation time', async () => {
    const { apiKey } = await newMerchant();
    const realNow = clock.now;
    const day = (d: number) => Date.parse(`2026-03-${String(d).padStart(2, '0')}T12:00:00.000Z`);
    try {
      clock.now = () => day(1);
      const early = await payments.create(apiKey, paymentBody({ routing: 'adyen', customer: { email: 'ann@example.com' } }));
      clock.now = () => day(2);
      const middle = await payments.create(apiKey, paymentBody({ routing: 'stripe', customer: { email: 'bob@example.com' } }));
      clock.now = () => day(3);
      const late = await payments.create(apiKey, paymentBody({ routing: 'adyen', customer: { email: 'bob@example.com' } }));
      clock.now = realNow;

      expect(ids(await payments.list(apiKey, { provider: 'adyen' }))).toEqual([late.body.id, early.body.id]);
      expect(ids(await payments.list(apiKey, { customer_email: 'BOB@example.com' }))).toEqual([late.body.id, middle.body.id]);
      expect(ids(await payments.list(apiKey, { 'created[gte]': '2026-03-02', 'created[lte]': '2026-03-02' }))).toEqual([middle.body.id]);
      expect(ids(await payments.list(apiKey, { 'created[gte]': '2026-03-02T12:00:00.000Z' }))).toEqual([late.body.id, middle.body.id]);
      expect(ids(await payments.list(apiKey, { 'created[lte]': '2026-03-02T11:59:59Z' }))).toEqual([early.body.id]);
      const both = await payments.list(apiKey, { provider: 'adyen', 'created[gte]': '2026-03-02' });
      expect(both.body).toMatchObject({ total: 1, has_more: false });
    } finally {
      clock.now = realNow;
    }
  });

  it("finds payments by the card's last 4 digits, counting the matches", async () => {
    // Prepare: two payments on a Visa ending 4242, one on a Mastercard ending 4444
    const { apiKey } = await newMerchant();
    const visa = [
      await payments.create(apiKey, paymentBody({}, '4242424242424242')),
      await payments.create(apiKey, paymentBody({}, '4242424242424242')),
    ];
    const mastercard = await payments.create(apiKey, paymentBody({}, '5555555555554444'));
    // Act
    const [byVisa, byMastercard, none] = await Promise.all(['4242', '4444', '0000'].map((card_last4) => payments.list(apiKey, { card_last4 })));
    // Assess
    expect(ids(byVisa!)).toEqual([visa[1]!.body.id, visa[0]!.body.id]);
    expect(byVisa!.body.total).toBe(2);
    expect(byVisa!.body.data[0].payment_method.card).toMatchObject({ brand: 'visa', last4: '4242' });
    expect(ids(byMastercard!)).toEqual([mastercard.body.id]);
    expect(none!.body).toMatchObject({ data: [], total: 0, has_more: false });
  });

  it.each([
    [{ card_last4: '424' }, 'card_last4'],
    [{ card_last4: '42a2' }, 'card_last4'],
    [{ status: 'pending' }, 'status'],
    [{ currency: 'XYZ' }, 'currency'],
    [{ provider: 'paypal' }, 'provider'],
    [{ customer_email: 'bob' }, 'customer_email'],
    [{ 'created[gte]': '2026-02-30' }, 'created[gte]'],
    [{ 'created[lte]': 'yesterday' }, 'created[lte]'],
    [{ limit: '0' }, 'limit'],
    [{ starting_after: 'cus_01jdxq3m5n6p7r8s9t0v1w2x3y' }, 'starting_after'],
  ])('answers 400 to the query %o', async (query, param) => {
    const { apiKey } = await newMerchant();
    const res = await payments.list(apiKey, query);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('counts total with the same reads for 3 payments as for 60, and follows every status change', async () => {
    // Prepare: a short history and a long one; the long one's payments captured, voided and refunded
    const short = await newMerchant();
    const long = await newMerchant();
    await Promise.all(Array.from({ length: 3 }, () => payments.create(short.apiKey, paymentBody())));
    // ten at a time: sixty at once on a busy 2-core machine run into the DynamoDB client's timeouts
    const ids: string[] = [];
    for (let made = 0; made < 60; made += 10) {
      const created = await Promise.all(Array.from({ length: 10 }, () => payments.create(long.apiKey, paymentBody())));
      expect(created.map((r) => r.status)).toEqual(Array(10).fill(200));
      ids.push(...created.map((r) => r.body.id as string));
    }
    await Promise.all(ids.slice(0, 20).map((id) => payments.capture(long.apiKey, id)));
    await Promise.all(ids.slice(20, 30).map((id) => payments.void(long.apiKey, id)));
    await Promise.all(ids.slice(0, 5).map((id) => payments.refund(long.apiKey, id, { amount: 100 })));
    // Act
    const shortList = await withFault({ kind: 'none' }, () => payments.list(short.apiKey, { limit: '2' }));
    const longList = await withFault({ kind: 'none' }, () => payments.list(long.apiKey, { limit: '2' }));
    const byStatus = await Promise.all(
      ['succeeded', 'captured', 'voided', 'refunded'].map((status) => payments.list(long.apiKey, { status, limit: '1' })),
    );
    // Assess
    expect(shortList.commands).toBe(longList.commands);
    expect((shortList.result as { body: { total: number } }).body.total).toBe(3);
    expect((longList.result as { body: { total: number } }).body.total).toBe(60);
    expect(byStatus.map((r) => r.body.total)).toEqual([30, 15, 10, 5]);
  });

  it('gives a merchant with no payments an empty list and a zero total', async () => {
    const { apiKey } = await newMerchant();
    expect((await payments.list(apiKey)).body).toEqual({ object: 'list', data: [], has_more: false, total: 0 });
  });
});
