import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { clientFor } from '../../shared/providers/stripe/client.ts';
import { stripeProvider } from '../../shared/providers/stripe/index.ts';
import type { Connector } from '../../shared/providers/types.ts';
import { STRIPE_DISPUTE_FEE } from '../../infra/local/fakes/stripe/payouts.ts';
import { STRIPE_FAKE_SECRET_KEY, type StripeFake, startStripeFake } from '../../infra/local/fakes/stripe/server.ts';

/**
 * The Stripe fake's payouts, read with the official SDK as reconciliation reads them: `GET /v1/payouts` and a payout's
 * balance transactions (paginated), each shaped as Stripe's published fixtures, with Stripe's fees. Each test has a
 * fake of its own, so a payout carries only that test's money.
 */
const fixtures = (
  JSON.parse(readFileSync(new URL('../../infra/local/fakes/contracts/stripe-fixtures3.json', import.meta.url), 'utf8')) as {
    resources: Record<string, Record<string, unknown>>;
  }
).resources;
const originalBaseUrl = config.STRIPE_API_BASE_URL;
let fake: StripeFake;
let connector: Connector;
let sdk: Stripe;

beforeEach(async () => {
  fake = await startStripeFake();
  config.STRIPE_API_BASE_URL = fake.url;
  connector = stripeProvider.connect({ secret_key: STRIPE_FAKE_SECRET_KEY }, { id: 'con_payouts', mode: 'test' });
  sdk = clientFor(STRIPE_FAKE_SECRET_KEY);
});
afterEach(async () => {
  await fake.close();
  config.STRIPE_API_BASE_URL = originalBaseUrl;
});

/** A captured payment of `amount` USD cents at the fake: its PaymentIntent id. */
async function captured(amount: number): Promise<string> {
  const paymentId = `pay_${randomUUID()}`;
  const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };
  const result = await connector.authorize({ paymentId, idempotencyKey: `${paymentId}_1`, amount, currency: 'USD', card, attempt: 1 });
  if (result.outcome !== 'approved') throw new Error(`not approved: ${JSON.stringify(result)}`);
  await connector.capture(result.reference, amount, 'USD', `${paymentId}_capture`);
  return result.reference;
}

const linesOf = (payout: string) => sdk.balanceTransactions.list({ payout, limit: 2, expand: ['data.source'] }).autoPagingToArray({ limit: 1000 });

describe('the Stripe fake pays out', () => {
  it('what was captured, refunded and disputed since the last payout, with Stripe’s fees, shaped as its fixtures', async () => {
    // Prepare: two charges, a refund of one, a dispute of the other
    const first = await captured(10_000);
    const second = await captured(2_500);
    const refund = await connector.refund(first, 3_000, 'USD', `ref_${randomUUID()}`);
    const dispute = fake.openDispute(second);
    // Act
    const [made] = fake.payOut();
    const payouts = await sdk.payouts.list({ limit: 10 });
    const lines = await linesOf(made!.id);
    // Assess: one payout, its lines (paginated two by two) newest first, its own transaction last
    expect(payouts.data.map((p) => p.id)).toEqual([made!.id]);
    const payout = payouts.data[0]!;
    expect(Object.keys(payout).sort()).toEqual(Object.keys(fixtures.payout!).sort());
    for (const line of lines) expect(Object.keys(line).sort()).toEqual(Object.keys(fixtures.balance_transaction!).sort());
    const byType = lines.map((l) => [l.reporting_category, l.amount, l.fee, l.net]);
    expect(byType).toEqual([
      ['dispute', -2_500, STRIPE_DISPUTE_FEE, -2_500 - STRIPE_DISPUTE_FEE],
      ['refund', -3_000, 0, -3_000],
      ['charge', 2_500, 103, 2_397],
      ['charge', 10_000, 320, 9_680],
      ['payout', -payout.amount, 0, -payout.amount],
    ]);
    expect(payout).toMatchObject({ amount: 9_680 + 2_397 - 3_000 - 4_000, currency: 'usd', status: 'paid' });
    const sources = lines.map((l) => l.source as { object: string; id: string; payment_intent?: string } | string);
    expect(sources.slice(0, 4).map((s) => typeof s === 'object' && [s.object, s.payment_intent])).toEqual([
      ['dispute', second],
      ['refund', first],
      ['charge', second],
      ['charge', first],
    ]);
    expect(sources.map((s) => (typeof s === 'object' ? s.id : s)).slice(0, 2)).toEqual([dispute, refund.ok && refund.reference]);
    // a second payout has nothing left to pay
    expect(() => fake.payOut()).toThrow(/nothing to pay out/);
  });

  it('lists payouts newest first, by creation time, a page at a time', async () => {
    // Prepare
    await captured(1_000);
    const [older] = fake.payOut();
    await captured(2_000);
    const [newer] = fake.payOut();
    // Act
    const all = await sdk.payouts.list({ limit: 1 }).autoPagingToArray({ limit: 10 });
    const since = await sdk.payouts.list({ created: { gte: Math.floor(Date.now() / 1000) + 60 } });
    // Assess
    expect(all.map((p) => p.id)).toEqual([newer!.id, older!.id]);
    expect(since.data).toEqual([]);
  });

  it.each([
    ['drop_line', { drop_line: true }, (lines: number[][], total: number) => [lines.length, total], [1, 941]],
    ['line_amount_delta', { line_amount_delta: 7 }, (lines: number[][]) => lines.map((l) => l[0]), [1_000, 1_007]],
    ['fee_delta', { fee_delta: 5 }, (lines: number[][]) => lines.map((l) => l[1]), [59, 64]],
    ['total_delta', { total_delta: -1 }, (_lines: number[][], total: number) => [total], [941 * 2 - 1]],
  ] as const)('gets %s wrong on the oldest charge line, as told', async (_name, faults, read, expected) => {
    // Prepare: two charges of 10.00 (fee 0.59 each)
    await captured(1_000);
    await captured(1_000);
    // Act
    const [made] = fake.payOut(faults);
    const lines = (await linesOf(made!.id)).filter((l) => l.type === 'charge').map((l) => [l.amount, l.fee, l.net]);
    // Assess
    expect(read(lines as number[][], made!.amount)).toEqual(expected);
  });

  it('answers the control call over HTTP, and refuses a fault of the wrong type', async () => {
    // Prepare
    await captured(1_000);
    const post = async (body: unknown) => {
      const response = await fetch(`${fake.url}/_fake/payouts`, { method: 'POST', body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as { data?: Array<{ id: string }>; error?: { message: string } } };
    };
    // Act
    const refused = await post({ fee_delta: 'five' });
    const paid = await post({});
    // Assess
    expect(refused).toEqual({ status: 400, body: { error: { message: 'fee_delta must be an integer' } } });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toEqual([{ id: expect.stringMatching(/^po_/), amount: 941, currency: 'usd' }]);
  });
});
