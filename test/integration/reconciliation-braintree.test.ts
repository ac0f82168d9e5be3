import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { clock } from '../../shared/model/clock.ts';
import { feeFor } from '../../shared/providers/fees.ts';
import { type BraintreeFake, startBraintreeFake } from '../../infra/local/fakes/braintree/server.ts';
import { startInboundGateway } from '../support/inbound.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { braintreeMerchant, capturedAt, disputedAt, recon } from '../support/reconciliation.ts';

/**
 * Reconciliation with Braintree's settlement days, end to end: payments through the Braintree connector at a Braintree
 * fake of each test's own, the fake paying out what settled (disbursement and fee report), the day over, a run.
 */
let gateway: Awaited<ReturnType<typeof startInboundGateway>>;
let fake: BraintreeFake;
const originalUrl = config.BRAINTREE_GATEWAY_URL;
const realNow = clock.now;
beforeAll(async () => {
  gateway = await startInboundGateway();
});
beforeEach(async () => {
  fake = await startBraintreeFake();
  config.BRAINTREE_GATEWAY_URL = fake.url;
});
afterEach(async () => {
  clock.now = realNow;
  await fake.close();
});
afterAll(async () => {
  config.BRAINTREE_GATEWAY_URL = originalUrl;
  await gateway.close();
});

const funds = (balance: { available: { amount: number; currency: string }[]; pending: { amount: number; currency: string }[] }) =>
  [...balance.available, ...balance.pending].filter((f) => f.currency === 'USD').reduce((n, f) => n + f.amount, 0);
const captured = (key: string, amount: number, capture = amount) => capturedAt('braintree', fake, key, amount, capture);
/** The settlement day is over (Braintree's days are UTC): a run may read it. */
const nextDay = () => {
  clock.now = () => realNow() + 86_400_000;
};

describe('a day at Braintree, its payout, a run', () => {
  it('matches every line, books the fee report’s fees, and pays out the balance: Braintree’s net', async () => {
    // Prepare: captures (one partial), a refund, a dispute, and an authorization never captured
    const merchant = await braintreeMerchant(fake, gateway.urlFor);
    const full = await captured(merchant.apiKey, 10_000);
    const partial = await captured(merchant.apiKey, 5_000, 3_000);
    const refunded = await captured(merchant.apiKey, 2_500);
    const refund = await payments.refund(merchant.apiKey, refunded, { amount: 1_000 });
    await fake.notifications.idle();
    const disputed = await captured(merchant.apiKey, 4_000);
    await disputedAt(fake, merchant.apiKey, disputed);
    expect((await payments.create(merchant.apiKey, paymentBody({ amount: 7_000, routing: 'braintree' }))).status).toBe(200);
    const heldBefore = funds(await recon.balance(merchant.apiKey));
    const [paidOut] = fake.payOut().payouts;
    nextDay();
    // Act
    const run = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess: one settlement of the day, every line matched, no exception
    expect(run.body).toMatchObject({ payouts_read: 1, settlements_created: [expect.any(String)], lines_matched: 6, exceptions_created: 0 });
    const settlement = (await recon.settlement(merchant.apiKey, run.body.settlements_created[0])).body;
    const fees = feeFor('braintree', 10_000) + feeFor('braintree', 3_000) + feeFor('braintree', 2_500) + feeFor('braintree', 4_000);
    const gross = 10_000 + 3_000 + 2_500 - 1_000 + 4_000 - 4_000;
    expect(settlement).toMatchObject({
      connector_id: merchant.connectorId,
      provider_payout_id: `fake_usd_${paidOut!.day}`,
      currency: 'USD',
      status: 'paid',
      gross,
      fees,
      net: gross - fees,
      amount: paidOut!.amount,
      transactions: 4,
    });
    const matched = settlement.lines.map((l: Record<string, unknown>) => [
      l.type,
      l.amount,
      l.payment_id,
      l.refund_id !== null,
      l.dispute_id !== null,
    ]);
    expect(matched).toEqual(
      expect.arrayContaining([
        ['charge', 10_000, full, false, false],
        ['charge', 3_000, partial, false, false],
        ['charge', 2_500, refunded, false, false],
        ['refund', -1_000, refunded, true, false],
        ['charge', 4_000, disputed, false, false],
        ['dispute', -4_000, disputed, false, true],
      ]),
    );
    expect(settlement.lines).toHaveLength(6);
    expect(settlement.lines.find((l: { type: string }) => l.type === 'refund').refund_id).toBe(refund.body.refund_id);
    expect((await recon.exceptions(merchant.apiKey)).body.data).toEqual([]);
    expect(heldBefore).toBe(gross);
    expect(funds(await recon.balance(merchant.apiKey))).toBe(0);
    expect(await recon.revenue(merchant.apiKey)).toMatchObject({ fees });
    expect(await recon.eventTypes(merchant.apiKey)).toContain('settlement.paid');
  });

  it('a second run changes nothing', async () => {
    // Prepare
    const merchant = await braintreeMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 6_000);
    fake.payOut({ fee_delta: 1 });
    nextDay();
    await recon.run(merchant.apiKey, merchant.connectorId);
    const balance = await recon.balance(merchant.apiKey);
    // Act
    const again = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess
    expect(again.body).toMatchObject({ payouts_read: 0, settlements_created: [], exceptions_created: 0 });
    expect(await recon.balance(merchant.apiKey)).toEqual(balance);
    expect((await recon.settlements(merchant.apiKey)).body.data).toHaveLength(1);
    expect((await recon.exceptions(merchant.apiKey)).body.data).toEqual([expect.objectContaining({ kind: 'fee_mismatch' })]);
  });

  it('reads a day only once it is over and its fee report is published', async () => {
    // Prepare: a capture settled today, the day not paid out yet
    const merchant = await braintreeMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 2_000);
    const today = await recon.run(merchant.apiKey, merchant.connectorId);
    nextDay();
    const unpublished = await recon.run(merchant.apiKey, merchant.connectorId);
    // Act
    fake.payOut();
    const published = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess
    expect(today.body).toMatchObject({ payouts_read: 0, settlements_created: [] });
    expect(unpublished.body).toMatchObject({ payouts_read: 0, settlements_created: [] });
    expect(published.body).toMatchObject({ payouts_read: 1, settlements_created: [expect.any(String)], exceptions_created: 0 });
  });
});

describe('each fault of the payout produces exactly its exception', () => {
  it.each([
    ['drop_line', 'missing_in_provider', { drop_line: true }, 10_000, null],
    ['line_amount_delta', 'amount_mismatch', { line_amount_delta: 7 }, 10_000, 10_007],
    ['fee_delta', 'fee_mismatch', { fee_delta: 5 }, feeFor('braintree', 10_000), feeFor('braintree', 10_000) + 5],
    ['total_delta', 'payout_total_mismatch', { total_delta: -1 }, 'sum', 'sum-1'],
  ] as const)('%s → %s', async (_fault, kind, faults, expected, actual) => {
    // Prepare: two captures (the faults hit the oldest one), paid out, the day over
    const merchant = await braintreeMerchant(fake, gateway.urlFor);
    const oldest = await captured(merchant.apiKey, 10_000);
    await captured(merchant.apiKey, 3_000);
    const [paidOut] = fake.payOut(faults).payouts;
    nextDay();
    // Act
    const run = await recon.run(merchant.apiKey, merchant.connectorId);
    const listed = (await recon.exceptions(merchant.apiKey)).body.data;
    // Assess
    const sum = 10_000 + 3_000 - feeFor('braintree', 10_000) - feeFor('braintree', 3_000);
    const value = (v: number | string | null) => (v === 'sum' ? sum : v === 'sum-1' ? sum - 1 : v);
    expect(run.body).toMatchObject({ payouts_read: 1, settlements_created: [expect.any(String)], exceptions_created: 1 });
    expect(listed).toEqual([
      expect.objectContaining({
        kind,
        expected: value(expected),
        actual: value(actual),
        connector_id: merchant.connectorId,
        provider_payout_id: `fake_usd_${paidOut!.day}`,
        settlement_id: run.body.settlements_created[0],
        payment_id: kind === 'payout_total_mismatch' ? null : oldest,
        status: 'open',
      }),
    ]);
  });
});

describe('a run that cannot be made', () => {
  it('answers 500 while Braintree cannot be read, changing nothing; the next run reconciles the day', async () => {
    // Prepare
    const merchant = await braintreeMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 4_500);
    fake.payOut();
    nextDay();
    fake.inject('payouts', { kind: 'status', status: 503 });
    // Act
    const failed = await recon.run(merchant.apiKey, merchant.connectorId);
    const next = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({ code: 'providers_unavailable', message: expect.stringContaining('braintree could not be read') });
    expect(next.body).toMatchObject({ payouts_read: 1, settlements_created: [expect.any(String)], exceptions_created: 0 });
  });
});

describe('the fee report is fetched only from Braintree, without redirects', () => {
  /** Another server, answering any report: it must never be asked. */
  let elsewhere: { url: string; hits: number; close: () => Promise<void> };
  beforeEach(async () => {
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/csv' }).end('Transaction ID,Settlement Currency,Total Fee Amount\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    elsewhere = {
      url: `http://127.0.0.1:${port}`,
      get hits() {
        return hits;
      },
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  });
  afterEach(() => elsewhere.close());

  const origin = /^http:\/\/127\.0\.0\.1:\d+/;
  it.each([
    ['an http link on another host (the fake under another name)', (link: string) => link.replace('127.0.0.1', 'localhost')],
    ['a link on another server', (link: string) => link.replace(origin, elsewhere.url)],
    ['a link that redirects to the report', (link: string) => link.replace('/reports/', '/reports/moved/')],
  ])('%s is refused: the run reads nothing of the day (500, nothing settled); the next run, linked right, reconciles it', async (_what, rewrite) => {
    // Prepare
    const merchant = await braintreeMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 4_500);
    fake.payOut();
    nextDay();
    fake.linkReports(rewrite);
    // Act
    const refused = await recon.run(merchant.apiKey, merchant.connectorId);
    const downloads = fake.requests.filter((r) => r.method === 'GET' && /^\/reports\/[0-9a-f]+\.csv$/.test(r.path ?? ''));
    const settledMeanwhile = (await recon.settlements(merchant.apiKey)).body.data;
    fake.linkReports();
    const next = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess: the report was never fetched while linked wrong, by no server; nothing settled until linked right
    expect(refused.status).toBe(500);
    expect(refused.body.error).toMatchObject({ code: 'providers_unavailable' });
    expect(downloads).toEqual([]);
    expect(elsewhere.hits).toBe(0);
    expect(settledMeanwhile).toEqual([]);
    expect(next.body).toMatchObject({ payouts_read: 1, settlements_created: [expect.any(String)], exceptions_created: 0 });
  });
});
