import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
// The daily reconciliation reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('reconciliation-adyen'));
import { config } from '../../shared/config.ts';
import { feeFor } from '../../shared/providers/fees.ts';
import { ADYEN_CHARGEBACK_FEE } from '../../infra/local/fakes/adyen/payouts.ts';
import { type AdyenFakeServer, startAdyenFake } from '../../infra/local/fakes/adyen/server.ts';
import { deliver, startInboundGateway } from '../support/inbound.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { adyenMerchant, capturedAt, dailyJobFor, disputedAt, recon } from '../support/reconciliation.ts';

/**
 * Reconciliation with Adyen's settlement batches, end to end: payments through the Adyen connector at an Adyen fake of
 * each test's own, the fake closing a batch (its settlement details report, announced by a signed REPORT_AVAILABLE
 * to the connector's webhook), the run it starts or the API's, and what it books.
 */
let gateway: Awaited<ReturnType<typeof startInboundGateway>>;
let fake: AdyenFakeServer;
const originalBaseUrl = config.ADYEN_CHECKOUT_BASE_URL;
beforeAll(async () => {
  gateway = await startInboundGateway();
});
beforeEach(async () => {
  fake = await startAdyenFake();
  config.ADYEN_CHECKOUT_BASE_URL = fake.url;
});
afterEach(async () => {
  expect(fake.contractViolations).toEqual([]);
  await fake.close();
});
afterAll(async () => {
  config.ADYEN_CHECKOUT_BASE_URL = originalBaseUrl;
  await gateway.close();
});

const funds = (balance: { available: { amount: number; currency: string }[]; pending: { amount: number; currency: string }[] }) =>
  [...balance.available, ...balance.pending].filter((f) => f.currency === 'USD').reduce((n, f) => n + f.amount, 0);
const captured = (key: string, amount: number, capture = amount) => capturedAt('adyen', fake, key, amount, capture);
const reportAvailable = () => fake.notifications.all().filter((n) => n.type === 'REPORT_AVAILABLE');

describe('a day at Adyen, its settlement batch, REPORT_AVAILABLE', () => {
  it('reconciles the batch: every line matched, the real fees booked, the balance paid out is Adyen’s net', async () => {
    // Prepare: captures (one partial), a refund, a chargeback, and an authorization never captured
    const merchant = await adyenMerchant(fake, gateway.urlFor);
    const full = await captured(merchant.apiKey, 10_000);
    const partial = await captured(merchant.apiKey, 5_000, 3_000);
    const refunded = await captured(merchant.apiKey, 2_500);
    const refund = await payments.refund(merchant.apiKey, refunded, { amount: 1_000 });
    await fake.notifications.idle();
    const disputed = await captured(merchant.apiKey, 4_000);
    await disputedAt(fake, merchant.apiKey, disputed);
    expect((await payments.create(merchant.apiKey, paymentBody({ amount: 7_000, routing: 'adyen' }))).status).toBe(200);
    const heldBefore = funds(await recon.balance(merchant.apiKey));
    // Act
    const batch = fake.payOut({}, merchant.merchantAccount);
    await fake.notifications.idle();
    // Assess: the notification was accepted, and its batch is one settlement with every line matched
    expect(reportAvailable().map((n) => n.status)).toEqual([200]);
    const [listed] = (await recon.settlements(merchant.apiKey)).body.data;
    const settlement = (await recon.settlement(merchant.apiKey, listed.id)).body;
    const fees = feeFor('adyen', 10_000) + feeFor('adyen', 3_000) + feeFor('adyen', 2_500) + feeFor('adyen', 4_000) + ADYEN_CHARGEBACK_FEE;
    const gross = 10_000 + 3_000 + 2_500 - 1_000 + 4_000 - 4_000;
    expect(settlement).toMatchObject({
      connector_id: merchant.connectorId,
      provider_payout_id: `batch_${batch.batch}`,
      currency: 'USD',
      status: 'paid',
      gross,
      fees,
      net: gross - fees,
      amount: batch.payouts[0]!.amount,
      transactions: 4,
    });
    expect(settlement.net).toBe(batch.payouts[0]!.amount);
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

  it('the same REPORT_AVAILABLE again, and a run, change nothing', async () => {
    // Prepare
    const merchant = await adyenMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 6_000);
    fake.payOut({ fee_delta: 1 }, merchant.merchantAccount);
    await fake.notifications.idle();
    const balance = await recon.balance(merchant.apiKey);
    const [notification] = reportAvailable();
    // Act
    const again = await deliver(new URL(notification!.url).pathname, notification!.headers, notification!.body);
    const run = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess
    expect(again.status).toBe(200);
    expect(again.rawBody).toBe('[accepted]');
    expect(run.body).toMatchObject({ payouts_read: 0, settlements_created: [], exceptions_created: 0 });
    expect(await recon.balance(merchant.apiKey)).toEqual(balance);
    expect((await recon.settlements(merchant.apiKey)).body.data).toHaveLength(1);
    expect((await recon.exceptions(merchant.apiKey)).body.data).toEqual([expect.objectContaining({ kind: 'fee_mismatch' })]);
  });

  it('batches one after another: each is reconciled once, and answers for the captures since the one before', async () => {
    // Prepare: a first batch (of a capture two seconds old at Adyen) reconciled, then a capture the next batch drops
    const merchant = await adyenMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 1_000);
    fake.backdate(2_000);
    fake.payOut({}, merchant.merchantAccount);
    await fake.notifications.idle();
    const later = await captured(merchant.apiKey, 2_000);
    await captured(merchant.apiKey, 3_000);
    // Act
    fake.payOut({ drop_line: true }, merchant.merchantAccount);
    await fake.notifications.idle();
    // Assess
    expect((await recon.exceptions(merchant.apiKey)).body.data).toEqual([
      expect.objectContaining({ kind: 'missing_in_provider', payment_id: later, expected: 2_000, actual: null, provider_payout_id: 'batch_2' }),
    ]);
    const grossAmounts = (await recon.settlements(merchant.apiKey)).body.data.map((s: { gross: number }) => s.gross);
    expect(grossAmounts.sort()).toEqual([1_000, 3_000]);
  });

  it('a REPORT_AVAILABLE whose signature does not match is refused, and starts nothing', async () => {
    // Prepare: a batch closed, its notification held, then altered after signing
    const merchant = await adyenMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 2_000);
    fake.notifications.hold(true);
    fake.payOut({}, merchant.merchantAccount);
    const [notification] = reportAvailable();
    const altered = notification!.body.replace(/settlement_detail_report_batch_1\.csv/g, 'settlement_detail_report_batch_7.csv');
    // Act
    const forged = await deliver(new URL(notification!.url).pathname, notification!.headers, altered);
    // Assess
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('webhook_verification_failed');
    expect((await recon.settlements(merchant.apiKey)).body.data).toEqual([]);
  });
});

describe('each fault of the batch produces exactly its exception', () => {
  it.each([
    ['drop_line', 'missing_in_provider', { drop_line: true }, 10_000, null],
    ['line_amount_delta', 'amount_mismatch', { line_amount_delta: 7 }, 10_000, 10_007],
    ['fee_delta', 'fee_mismatch', { fee_delta: 5 }, feeFor('adyen', 10_000), feeFor('adyen', 10_000) + 5],
    ['total_delta', 'payout_total_mismatch', { total_delta: -1 }, 'sum', 'sum-1'],
  ] as const)('%s → %s (the run of POST /api/connectors/:id/reconcile)', async (_fault, kind, faults, expected, actual) => {
    // Prepare: two captures (the faults hit the oldest one's row), the batch's notification held
    const merchant = await adyenMerchant(fake, gateway.urlFor);
    const oldest = await captured(merchant.apiKey, 10_000);
    await captured(merchant.apiKey, 3_000);
    fake.notifications.hold(true);
    const batch = fake.payOut(faults, merchant.merchantAccount);
    // Act
    const run = await recon.run(merchant.apiKey, merchant.connectorId);
    const listed = (await recon.exceptions(merchant.apiKey)).body.data;
    // Assess
    const sum = 10_000 + 3_000 - feeFor('adyen', 10_000) - feeFor('adyen', 3_000);
    const value = (v: number | string | null) => (v === 'sum' ? sum : v === 'sum-1' ? sum - 1 : v);
    expect(run.body).toMatchObject({ payouts_read: 1, settlements_created: [expect.any(String)], exceptions_created: 1 });
    expect(listed).toEqual([
      expect.objectContaining({
        kind,
        expected: value(expected),
        actual: value(actual),
        connector_id: merchant.connectorId,
        provider_payout_id: `batch_${batch.batch}`,
        settlement_id: run.body.settlements_created[0],
        payment_id: kind === 'payout_total_mismatch' ? null : oldest,
        status: 'open',
      }),
    ]);
    expect(await recon.eventTypes(merchant.apiKey)).toContain('reconciliation.exception_created');
  });
});

describe('a run that cannot be made, and the daily job', () => {
  it('answers REPORT_AVAILABLE with 500 while the report cannot be downloaded; Adyen’s retry reconciles the batch', async () => {
    // Prepare
    const merchant = await adyenMerchant(fake, gateway.urlFor);
    await captured(merchant.apiKey, 4_500);
    fake.inject('payouts', { kind: 'status', status: 503 });
    fake.payOut({}, merchant.merchantAccount);
    await fake.notifications.idle();
    const answered = reportAvailable().map((n) => n.status);
    const settlementsAfterFailure = (await recon.settlements(merchant.apiKey)).body.data;
    // Act
    await fake.notifications.flush();
    // Assess
    expect(answered).toEqual([500]);
    expect(settlementsAfterFailure).toEqual([]);
    expect(reportAvailable().map((n) => n.status)).toEqual([200]);
    expect((await recon.settlements(merchant.apiKey)).body.data).toEqual([
      expect.objectContaining({ connector_id: merchant.connectorId, gross: 4_500, fees: feeFor('adyen', 4_500), provider_payout_id: 'batch_1' }),
    ]);
  });

  it('the daily job reads the batches not yet reconciled, like the API does', async () => {
    // Prepare: two batches, neither announced
    const merchant = await adyenMerchant(fake, gateway.urlFor);
    fake.notifications.hold(true);
    await captured(merchant.apiKey, 8_000);
    await fake.notifications.flush();
    fake.payOut({}, merchant.merchantAccount);
    await captured(merchant.apiKey, 1_200);
    await fake.notifications.flush();
    fake.payOut({}, merchant.merchantAccount);
    // Act
    await dailyJobFor(merchant.connectorId);
    // Assess
    const settlements = (await recon.settlements(merchant.apiKey)).body.data;
    expect(settlements.map((s: { provider_payout_id: string; gross: number }) => [s.provider_payout_id, s.gross]).sort()).toEqual([
      ['batch_1', 8_000],
      ['batch_2', 1_200],
    ]);
    expect((await recon.run(merchant.apiKey, merchant.connectorId)).body).toMatchObject({ payouts_read: 0, settlements_created: [] });
  });
});
