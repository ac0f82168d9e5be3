import { describe, expect, it } from 'vitest';
import { handler as recovery } from '../../functions/analytics/recovery.ts';
import { handler as updateCard } from '../../functions/test-helpers/payment-method-update.ts';
import { clock } from '../../shared/model/clock.ts';

const realNow = clock.now;
import { advanceClockTo } from '../support/clocks.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { DUE, read, subscribedOnCard } from '../support/recovery.ts';
import { subscribe } from '../support/renewals.ts';

const updateTestCard = (key: string, id: string, body: unknown) =>
  invokeHttp(updateCard, apiEvent({ method: 'POST', path: `/api/test_helpers/payment_methods/${id}/update`, headers: bearer(key), body }));

/**
 * The retry policy by decline code (docs/api.md "Subscription recovery"), played on a test clock: a monthly subscription
 * on a saved card due on 15 March 2027, whose renewal the built-in sandbox declines with the card's code.
 */
describe('a declined renewal follows the retry policy of its decline code', () => {
  it('retries a soft decline (insufficient_funds) on days 1, 3, 5 and 7, saying when and why, then gives up', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const { clockId, subscriptionId } = await subscribedOnCard(apiKey, '4000000000009995');

    // Act: 40 days on
    await advanceClockTo(apiKey, clockId, '2027-03-27T09:00:00Z');

    // Assess: one charge on each day of the schedule; each failure told when the next one runs
    const charges = await read.charges(merchantId, subscriptionId);
    expect(charges.map((c) => [c.created_at.slice(0, 10), c.status, c.decline_code])).toEqual(
      ['2027-03-15', '2027-03-16', '2027-03-18', '2027-03-20', '2027-03-22'].map((day) => [day, 'failed', 'insufficient_funds']),
    );
    const failed = await read.events(merchantId, 'invoice.payment_failed');
    expect(failed.map((e) => e.data.object.next_retry_at)).toEqual(['2027-03-16', '2027-03-18', '2027-03-20', '2027-03-22', null]);
    expect(failed[0].data.object.retry_reason).toBe('insufficient_funds is a soft decline: retried on day 1 after the first try');
    const sub = await read.subscription(apiKey, subscriptionId);
    expect(sub).toMatchObject({ status: 'past_due', next_billing: DUE, retry_at: null, retry_reason: expect.stringContaining('none is left') });
    expect(await read.invoice(apiKey, sub.latest_invoice)).toMatchObject({
      status: 'draft',
      next_retry_at: null,
      retry_reason: sub.retry_reason,
    });
  });

  it.each([
    ['stolen_card', '4000000000009979', 'is a hard decline: the issuer will not approve this card again, so it is not retried'],
    ['expired_card', '4000000000000069', 'waiting for an updated card'],
  ])('does not retry %s: past_due with no retry date, and the reason', async (code, card, why) => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const { clockId, subscriptionId } = await subscribedOnCard(apiKey, card);

    // Act
    await advanceClockTo(apiKey, clockId, '2027-03-27T09:00:00Z');

    // Assess: one charge, nothing scheduled, the subscription and its invoice say why
    expect((await read.charges(merchantId, subscriptionId)).map((c) => c.decline_code)).toEqual([code]);
    const sub = await read.subscription(apiKey, subscriptionId);
    expect(sub).toMatchObject({ status: 'past_due', retry_at: null, retry_reason: expect.stringContaining(why) });
    expect(await read.invoice(apiKey, sub.latest_invoice)).toMatchObject({ next_retry_at: null, retry_reason: sub.retry_reason });
    const failed = await read.events(merchantId, 'invoice.payment_failed');
    expect(failed.map((e) => [e.data.object.id, e.data.object.next_retry_at])).toEqual([[sub.latest_invoice, null]]);
  });
});

describe('a renewal waiting for an updated card (expired_card)', () => {
  it('is charged by the first run after the card is updated, with the new card; never before', async () => {
    // Prepare: the renewal declined expired_card on its due date, then days pass with no retry
    const { apiKey, merchantId } = await newMerchant();
    const { clockId, subscriptionId, paymentMethodId } = await subscribedOnCard(apiKey, '4000000000000069');
    await advanceClockTo(apiKey, clockId, '2027-03-20T09:00:00Z');
    expect((await read.charges(merchantId, subscriptionId)).map((c) => c.decline_code)).toEqual(['expired_card']);

    // Act: the card networks' updater replaces the card; the clock moves on to the next hourly run
    const updated = await updateTestCard(apiKey, paymentMethodId, { exp_month: 4, exp_year: 2031, number: '4242424242424242' });
    const waiting = await read.subscription(apiKey, subscriptionId);
    await advanceClockTo(apiKey, clockId, '2027-03-20T11:00:00Z');

    // Assess: due again today, then charged once with the new card: renewed, the invoice paid
    expect(updated.status, updated.rawBody).toBe(200);
    expect(waiting).toMatchObject({ status: 'past_due', retry_at: '2027-03-20', retry_reason: 'the card was updated: charged again on 2027-03-20' });
    const charges = await read.charges(merchantId, subscriptionId);
    expect(charges.map((c) => [c.created_at.slice(0, 10), c.status, c.card.last4])).toEqual([
      ['2027-03-15', 'failed', '0069'],
      ['2027-03-20', 'captured', '4242'],
    ]);
    const sub = await read.subscription(apiKey, subscriptionId);
    expect(sub).toMatchObject({ status: 'active', current_period_start: DUE, retry_reason: null });
    expect(await read.invoice(apiKey, sub.latest_invoice)).toMatchObject({ status: 'paid', payment_id: charges[1]!.id });
  });
});

describe('the per-card retry cap', () => {
  it('sends no more than 15 retries of one card in 30 days over every account: a renewal past it waits, then runs', async () => {
    // Prepare: two subscriptions on one card the issuer declines (insufficient_funds); in test mode without connector
    // accounts a run tries the three sandbox providers. The first one's runs retry it 14 times (its first try is free).
    const { apiKey, merchantId } = await newMerchant();
    const first = await subscribedOnCard(apiKey, '4000000000009995');
    await advanceClockTo(apiKey, first.clockId, '2027-02-23T09:00:00Z');
    const body = {
      customer_id: first.customerId,
      payment_method: first.paymentMethodId,
      plan: 'Extra',
      amount: 900,
      currency: 'eur',
      interval: 'month',
    };
    const second = (await subscribe(apiKey, body)).body;
    expect(second.next_billing).toBe('2027-03-23');

    // Act 1: to the second one's first retry, a day after its first try
    await advanceClockTo(apiKey, first.clockId, '2027-03-24T09:00:00Z');

    // Assess 1: the second one's first try used the one retry left; its retry sent nothing and waits for the window
    const attempts = async (subscriptionId: string) => (await read.charges(merchantId, subscriptionId)).flatMap((c) => c.attempts ?? []);
    expect(await attempts(first.subscriptionId)).toHaveLength(15);
    const charges = await read.charges(merchantId, second.id);
    expect(charges.map((c) => [c.created_at.slice(0, 10), c.attempts?.length])).toEqual([['2027-03-23', 2]]);
    const waiting = await read.subscription(apiKey, second.id);
    expect(waiting).toMatchObject({ status: 'past_due', retry_at: '2027-04-14', retry_reason: expect.stringContaining('nothing was sent') });
    expect(await read.invoice(apiKey, waiting.latest_invoice)).toMatchObject({ next_retry_at: '2027-04-14', retry_reason: waiting.retry_reason });

    // Act 2: to the day the oldest retries leave the window
    await advanceClockTo(apiKey, first.clockId, '2027-04-14T09:00:00Z');

    // Assess 2: it ran then, within what the window allows (2), and no retry of its schedule is left
    const later = await read.charges(merchantId, second.id);
    expect(later.map((c) => [c.created_at.slice(0, 10), c.attempts?.length])).toEqual([
      ['2027-03-23', 2],
      ['2027-04-14', 2],
    ]);
    expect(await read.subscription(apiKey, second.id)).toMatchObject({ status: 'past_due', retry_at: null });
  });
});

describe('GET /api/analytics/recovery', () => {
  it('counts failed renewals by first decline code, those recovered, the rate and the revenue', async () => {
    // Prepare: two renewals that fail on their due date; the expired card is then updated and recovered, the other not
    const { apiKey } = await newMerchant();
    const expired = await subscribedOnCard(apiKey, '4000000000000069');
    const broke = await subscribedOnCard(apiKey, '4000000000009995');
    await Promise.all([expired, broke].map((s) => advanceClockTo(apiKey, s.clockId, '2027-03-15T10:00:00Z')));
    await updateTestCard(apiKey, expired.paymentMethodId, { exp_month: 4, exp_year: 2031, number: '4242424242424242' });
    await advanceClockTo(apiKey, expired.clockId, '2027-03-15T12:00:00Z');
    // Act: the report as of a few days later (the clocks' days)
    clock.now = () => Date.parse('2027-03-18T12:00:00Z');
    const report = await invokeHttp(recovery, apiEvent({ path: '/api/analytics/recovery', headers: bearer(apiKey), query: { period: '30d' } }));
    clock.now = realNow;
    // Assess
    expect(report.status, report.rawBody).toBe(200);
    expect(report.body).toEqual({
      object: 'recovery',
      livemode: false,
      currency: 'EUR',
      period: '30d',
      failed: 2,
      recovered: 1,
      recovery_rate: 50,
      recovered_revenue: 2900,
      by_decline_code: [
        { decline_code: 'expired_card', failed: 1, recovered: 1, recovery_rate: 100, recovered_revenue: 2900 },
        { decline_code: 'insufficient_funds', failed: 1, recovered: 0, recovery_rate: 0, recovered_revenue: 0 },
      ],
    });
  });
});
