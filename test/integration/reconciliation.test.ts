import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
// The daily reconciliation and settlement reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('reconciliation'));
import { config } from '../../shared/config.ts';
import { runSettlementDay } from '../../shared/domain/settlements.ts';
import { feeFor } from '../../shared/providers/fees.ts';
import { stripeProvider } from '../../shared/providers/stripe/index.ts';
import { dayOf } from '../../shared/store/ledger.ts';
import { STRIPE_DISPUTE_FEE } from '../../infra/local/fakes/stripe/payouts.ts';
import { type StripeFake, startStripeFake } from '../../infra/local/fakes/stripe/server.ts';
import { startInboundGateway } from '../support/inbound.ts';
import { newMerchant, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { capturedAtStripe, dailyJobFor, disputedAt, recon, stripeMerchant } from '../support/reconciliation.ts';

/**
 * Reconciliation with Stripe's payouts, end to end: payments through the Stripe connector at a Stripe fake of each
 * test's own, the fake's payout, the run through the official SDK, and what it books (settlement, fees, balance,
 * exceptions). Sandbox money keeps the daily job's simulated settlements.
 */
let gateway: Awaited<ReturnType<typeof startInboundGateway>>;
let fake: StripeFake;
const originalBaseUrl = config.STRIPE_API_BASE_URL;
beforeAll(async () => {
  gateway = await startInboundGateway();
});
beforeEach(async () => {
  fake = await startStripeFake();
  config.STRIPE_API_BASE_URL = fake.url;
});
afterEach(() => fake.close());
afterAll(async () => {
  config.STRIPE_API_BASE_URL = originalBaseUrl;
  await gateway.close();
});

const funds = (balance: { available: { amount: number; currency: string }[]; pending: { amount: number; currency: string }[] }) =>
  [...balance.available, ...balance.pending].filter((f) => f.currency === 'USD').reduce((n, f) => n + f.amount, 0);

describe('a day at Stripe, its payout, a run', () => {
  it('matches every line, books the real fees, and pays out the balance: the provider’s net', async () => {
    // Prepare: captures (one partial), a refund, a dispute, and an authorization never captured
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    const full = await capturedAtStripe(fake, merchant.apiKey, 10_000);
    const partial = await capturedAtStripe(fake, merchant.apiKey, 5_000, 3_000);
    const refunded = await capturedAtStripe(fake, merchant.apiKey, 2_500);
    const refund = await payments.refund(merchant.apiKey, refunded, { amount: 1_000 });
    const disputed = await capturedAtStripe(fake, merchant.apiKey, 4_000);
    await disputedAt(fake, merchant.apiKey, disputed);
    expect((await payments.create(merchant.apiKey, paymentBody({ amount: 7_000, routing: 'stripe' }))).status).toBe(200);
    const heldBefore = funds(await recon.balance(merchant.apiKey));
    const [paidOut] = fake.payOut({}, merchant.secretKey);
    // Act
    const run = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess: one settlement of the payout, every line matched, no exception
    expect(run.status).toBe(200);
    expect(run.body).toEqual({
      object: 'reconciliation_run',
      connector_id: merchant.connectorId,
      livemode: false,
      payouts_read: 1,
      settlements_created: [expect.stringMatching(/^set_/)],
      lines_matched: 6,
      exceptions_created: 0,
    });
    const fees = feeFor('stripe', 10_000) + feeFor('stripe', 3_000) + feeFor('stripe', 2_500) + feeFor('stripe', 4_000) + STRIPE_DISPUTE_FEE;
    const gross = 10_000 + 3_000 + 2_500 - 1_000 + 4_000 - 4_000;
    const settlement = (await recon.settlement(merchant.apiKey, run.body.settlements_created[0])).body;
    expect(settlement).toMatchObject({
      connector_id: merchant.connectorId,
      provider_payout_id: paidOut!.id,
      currency: 'USD',
      status: 'paid',
      gross,
      fees,
      net: gross - fees,
      amount: paidOut!.amount,
      transactions: 4,
    });
    expect(settlement.net).toBe(paidOut!.amount);
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
    expect(settlement.lines.find((l: { type: string }) => l.type === 'refund').refund_id).toBe(refund.body.refund_id);
    // the balance held at Stripe is what the payout carried; paid out, nothing is left; the fees are in the revenue report
    expect(heldBefore).toBe(gross);
    expect(funds(await recon.balance(merchant.apiKey))).toBe(0);
    const report = await recon.revenue(merchant.apiKey);
    expect(report).toMatchObject({ fees, net: report.total - fees });
    expect(report.by_day.find((d: { date: string }) => d.date === dayOf(new Date().toISOString())).fees).toBe(fees);
    expect(await recon.eventTypes(merchant.apiKey)).toContain('settlement.paid');
  });

  it('a second run changes nothing: no settlement, no exception, the same balance', async () => {
    // Prepare
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    await capturedAtStripe(fake, merchant.apiKey, 6_000);
    fake.payOut({ fee_delta: 1 }, merchant.secretKey);
    const first = await recon.run(merchant.apiKey, merchant.connectorId);
    const balance = await recon.balance(merchant.apiKey);
    // Act
    const second = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess
    expect(first.body).toMatchObject({ settlements_created: [expect.any(String)], exceptions_created: 1 });
    expect(second.body).toMatchObject({ payouts_read: 1, settlements_created: [], lines_matched: 0, exceptions_created: 0 });
    expect(await recon.balance(merchant.apiKey)).toEqual(balance);
    expect((await recon.settlements(merchant.apiKey)).body.data).toHaveLength(1);
    expect((await recon.exceptions(merchant.apiKey)).body.data).toHaveLength(1);
  });
});

describe('payouts one after another', () => {
  it('a run reads the payouts since the last one; each payout answers for the captures since the one before', async () => {
    // Prepare: a first payout (of a capture two seconds old at Stripe) reconciled, then a capture whose line the
    // second payout drops
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    await capturedAtStripe(fake, merchant.apiKey, 1_000);
    fake.backdate(2_000);
    fake.payOut({}, merchant.secretKey);
    const first = await recon.run(merchant.apiKey, merchant.connectorId);
    const later = await capturedAtStripe(fake, merchant.apiKey, 2_000);
    await capturedAtStripe(fake, merchant.apiKey, 3_000);
    fake.payOut({ drop_line: true }, merchant.secretKey);
    // Act
    const second = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess: the first payout is found reconciled, the second is settled, and only the dropped capture is missing
    expect(first.body).toMatchObject({ payouts_read: 1, exceptions_created: 0 });
    expect(second.body).toMatchObject({ settlements_created: [expect.any(String)], lines_matched: 1, exceptions_created: 1 });
    expect((await recon.exceptions(merchant.apiKey)).body.data).toEqual([
      expect.objectContaining({ kind: 'missing_in_provider', payment_id: later, expected: 2_000, actual: null }),
    ]);
    const grossAmounts = (await recon.settlements(merchant.apiKey)).body.data.map((s: { gross: number }) => s.gross);
    expect(grossAmounts.sort()).toEqual([1_000, 3_000]);
  });
});

describe('a settlement’s lines as CSV', () => {
  it('answers one row per line with our ids beside the provider’s', async () => {
    // Prepare: a capture and a partial refund at Stripe, paid out and reconciled
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    const paid = await capturedAtStripe(fake, merchant.apiKey, 2_000);
    const refund = (await payments.refund(merchant.apiKey, paid, { amount: 500 })).body.refund_id;
    const [payout] = fake.payOut({}, merchant.secretKey);
    const [settlement] = (await recon.run(merchant.apiKey, merchant.connectorId)).body.settlements_created;
    // Act
    const res = await recon.lines(merchant.apiKey, settlement);
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rows = res.rawBody.trimEnd().split('\r\n');
    expect(rows[0]).toBe('settlement_id,provider_payout_id,type,source,amount,fee,net,currency,payment_id,refund_id,dispute_id');
    expect(
      rows
        .slice(1)
        .map((r) => r.split(','))
        .map((c) => [c[0], c[1], c[2], c[4], c[5], c[7], c[8], c[9]]),
    ).toEqual([
      [settlement, payout!.id, 'refund', '-500', '0', 'USD', paid, refund],
      [settlement, payout!.id, 'charge', '2000', String(feeFor('stripe', 2_000)), 'USD', paid, ''],
    ]);
    expect((await recon.lines(merchant.apiKey, 'set_01jq7k3v9qf2m7x4b6n5c0t1wz')).status).toBe(404);
  });

  it('has the header only for a simulated settlement of sandbox money', async () => {
    // Prepare
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    const sandbox = await payments.create(merchant.apiKey, paymentBody({ amount: 1_200, routing: 'adyen' }));
    await payments.capture(merchant.apiKey, sandbox.body.id);
    await runSettlementDay(testOwner(merchant.merchantId), dayOf(new Date(Date.now() + 3 * 86_400_000).toISOString()));
    const [simulated] = (await recon.settlements(merchant.apiKey)).body.data;
    // Act
    const res = await recon.lines(merchant.apiKey, simulated.id);
    // Assess
    expect(res.rawBody).toBe('settlement_id,provider_payout_id,type,source,amount,fee,net,currency,payment_id,refund_id,dispute_id\r\n');
  });
});

describe('each fault of the payout produces exactly its exception', () => {
  it.each([
    ['drop_line', { drop_line: true }, 'missing_in_provider', 10_000, null],
    ['line_amount_delta', { line_amount_delta: 7 }, 'amount_mismatch', 10_000, 10_007],
    ['fee_delta', { fee_delta: 5 }, 'fee_mismatch', feeFor('stripe', 10_000), feeFor('stripe', 10_000) + 5],
    ['total_delta', { total_delta: -1 }, 'payout_total_mismatch', 'sum', 'sum-1'],
  ] as const)('%s → %s', async (_fault, faults, kind, expected, actual) => {
    // Prepare: two captures; the faults hit the oldest one's line
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    const oldest = await capturedAtStripe(fake, merchant.apiKey, 10_000);
    await capturedAtStripe(fake, merchant.apiKey, 3_000);
    const [paidOut] = fake.payOut(faults, merchant.secretKey);
    // Act
    const run = await recon.run(merchant.apiKey, merchant.connectorId);
    const listed = (await recon.exceptions(merchant.apiKey)).body.data;
    // Assess
    const sum = 10_000 + 3_000 - feeFor('stripe', 10_000) - feeFor('stripe', 3_000);
    const value = (v: number | string | null) => (v === 'sum' ? sum : v === 'sum-1' ? sum - 1 : v);
    expect(run.body.exceptions_created).toBe(1);
    expect(listed).toEqual([
      expect.objectContaining({
        kind,
        expected: value(expected),
        actual: value(actual),
        connector_id: merchant.connectorId,
        provider_payout_id: paidOut!.id,
        settlement_id: run.body.settlements_created[0],
        payment_id: kind === 'payout_total_mismatch' ? null : oldest,
        status: 'open',
      }),
    ]);
    expect(await recon.eventTypes(merchant.apiKey)).toContain('reconciliation.exception_created');
  });

  it('a charge made at the account but not through us is missing_in_ledger', async () => {
    // Prepare: one of ours, and one made at the same Stripe account directly (its dashboard, another integration)
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    await capturedAtStripe(fake, merchant.apiKey, 2_000);
    const direct = stripeProvider.connect({ secret_key: merchant.secretKey }, { id: 'con_elsewhere', mode: 'test' });
    const card = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' };
    const elsewhere = await direct.authorize({
      paymentId: 'order-77',
      idempotencyKey: `k-${randomUUID()}`,
      amount: 900,
      currency: 'USD',
      card,
      attempt: 1,
    });
    if (elsewhere.outcome !== 'approved') throw new Error('not approved');
    await direct.capture(elsewhere.reference, 900, 'USD', `k-${randomUUID()}`);
    fake.payOut({}, merchant.secretKey);
    // Act
    const run = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess
    expect(run.body).toMatchObject({ lines_matched: 1, exceptions_created: 1 });
    expect((await recon.exceptions(merchant.apiKey)).body.data).toEqual([
      expect.objectContaining({ kind: 'missing_in_ledger', expected: null, actual: 900, payment_id: null, source: expect.stringMatching(/^ch_/) }),
    ]);
  });
});

describe('exceptions', () => {
  it('are listed with filters and resolved once, with who resolved them and when', async () => {
    // Prepare: a fee_mismatch and a payout_total_mismatch
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    await capturedAtStripe(fake, merchant.apiKey, 5_000);
    fake.payOut({ fee_delta: 2, total_delta: 3 }, merchant.secretKey);
    await recon.run(merchant.apiKey, merchant.connectorId);
    const [fee] = (await recon.exceptions(merchant.apiKey, { kind: 'fee_mismatch', connector_id: merchant.connectorId })).body.data;
    // Act
    const resolved = await recon.resolve(merchant.apiKey, fee.id, { resolution: 'claimed_from_provider', note: 'Asked Stripe for 0.02' });
    const again = await recon.resolve(merchant.apiKey, fee.id, { resolution: 'accepted' });
    // Assess
    expect((await recon.exceptions(merchant.apiKey)).body.data.map((e: { kind: string }) => e.kind).sort()).toEqual([
      'fee_mismatch',
      'payout_total_mismatch',
    ]);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      status: 'resolved',
      resolution: 'claimed_from_provider',
      note: 'Asked Stripe for 0.02',
      resolved_by: expect.stringMatching(/^key_/),
      resolved_at: expect.any(String),
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining('a resolved reconciliation exception cannot be resolved'),
    });
    expect((await recon.exceptions(merchant.apiKey, { status: 'open' })).body.data.map((e: { kind: string }) => e.kind)).toEqual([
      'payout_total_mismatch',
    ]);
  });

  it.each([
    ['an unknown kind', { kind: 'lost' }, 'kind'],
    ['a malformed connector id', { connector_id: 'stripe' }, 'connector_id'],
    ['an unknown filter', { knd: 'fee_mismatch' }, 'knd'],
  ])('answers %s with 400 naming it', async (_case, query, param) => {
    const { apiKey } = await newMerchant();
    const res = await recon.exceptions(apiKey, query);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('answers another merchant’s exception with 404, and a bad resolution with 400', async () => {
    // Prepare
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    await capturedAtStripe(fake, merchant.apiKey, 5_000);
    fake.payOut({ fee_delta: 2 }, merchant.secretKey);
    await recon.run(merchant.apiKey, merchant.connectorId);
    const [exception] = (await recon.exceptions(merchant.apiKey)).body.data;
    const stranger = await newMerchant();
    // Act + Assess
    expect((await recon.resolve(stranger.apiKey, exception.id, { resolution: 'accepted' })).status).toBe(404);
    expect((await recon.run(stranger.apiKey, merchant.connectorId)).status).toBe(404);
    const bad = await recon.resolve(merchant.apiKey, exception.id, { resolution: 'ignored' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('resolution');
  });
});

describe('a run that cannot be made', () => {
  it('answers 500 while Stripe cannot be read, changing nothing; the next run reconciles the payout', async () => {
    // Prepare
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    await capturedAtStripe(fake, merchant.apiKey, 4_500);
    fake.payOut({}, merchant.secretKey);
    fake.inject('payouts', { kind: 'status', status: 503 });
    // Act
    const failed = await recon.run(merchant.apiKey, merchant.connectorId);
    const next = await recon.run(merchant.apiKey, merchant.connectorId);
    // Assess
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({ code: 'providers_unavailable', message: expect.stringContaining('stripe could not be read') });
    expect(next.body).toMatchObject({ payouts_read: 1, settlements_created: [expect.any(String)], exceptions_created: 0 });
  });
});

describe('the daily job and the sandbox', () => {
  it('the daily job reconciles the account like the API does', async () => {
    // Prepare
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    await capturedAtStripe(fake, merchant.apiKey, 8_000);
    fake.payOut({}, merchant.secretKey);
    // Act
    await dailyJobFor(merchant.connectorId);
    // Assess
    const [settlement] = (await recon.settlements(merchant.apiKey)).body.data;
    expect(settlement).toMatchObject({ connector_id: merchant.connectorId, gross: 8_000, fees: feeFor('stripe', 8_000), status: 'paid' });
    expect((await recon.run(merchant.apiKey, merchant.connectorId)).body.settlements_created).toEqual([]);
  });

  it('sandbox money keeps its simulated settlement; money held at a connector account is not swept into one', async () => {
    // Prepare: a sandbox capture, and a Stripe one of the same merchant
    const merchant = await stripeMerchant(fake, gateway.urlFor);
    const sandbox = await payments.create(merchant.apiKey, paymentBody({ amount: 1_500, routing: 'adyen' }));
    await payments.capture(merchant.apiKey, sandbox.body.id);
    await capturedAtStripe(fake, merchant.apiKey, 4_000);
    const inThreeDays = dayOf(new Date(Date.now() + 3 * 86_400_000).toISOString());
    // Act
    await runSettlementDay(testOwner(merchant.merchantId), inThreeDays);
    // Assess
    const [settlement] = (await recon.settlements(merchant.apiKey)).body.data;
    expect((await recon.settlements(merchant.apiKey)).body.data).toHaveLength(1);
    expect(settlement).toMatchObject({ amount: 1_500, connector_id: null, provider_payout_id: null, gross: 1_500, fees: 0, net: 1_500 });
    expect(funds(await recon.balance(merchant.apiKey))).toBe(4_000);
  });
});
