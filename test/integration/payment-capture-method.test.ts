import { afterEach, describe, expect, it } from 'vitest';
import { sandboxBooks, sandboxSettings } from '../../shared/providers/sandbox.ts';
import { db } from '../../shared/store/client.ts';
import { balanceTotal, heldFor, moneyProblems, resetClock, retryUntilAnswered, storedPayment } from '../support/faults.ts';
import { newMerchant } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';

/**
 * `capture_method: automatic` (docs/api.md "Payments"): the create captures the payment once authorized, through the
 * capture operation. A run that stops between authorization and capture is finished by the retry with the same
 * Idempotency-Key: exactly one capture at the provider.
 */

/** What happens at the capture's begin (the first write naming a capture operation): nothing armed, a crash, or the provider going down. */
const atCaptureBegin: { fault: 'none' | 'crash_before' | 'crash_after' | 'provider_down' | 'voided_meanwhile' } = { fault: 'none' };

db.middlewareStack.add(
  (next) => async (args) => {
    const fault = atCaptureBegin.fault;
    if (fault === 'none' || !JSON.stringify(args.input).includes('"kind":"capture"')) return next(args);
    atCaptureBegin.fault = 'none';
    if (fault === 'crash_before') throw new Error('crashed after the authorization, before the capture began');
    if (fault === 'provider_down') sandboxSettings.down.add('stripe');
    if (fault === 'voided_meanwhile') for (const held of sandboxBooks.authorizations.values()) if (held.state === 'authorized') held.state = 'voided';
    const out = await next(args);
    if (fault === 'crash_after') throw new Error('crashed after the capture began');
    return out;
  },
  { step: 'initialize', priority: 'high', name: 'faultAtCaptureBegin' },
);

afterEach(() => {
  atCaptureBegin.fault = 'none';
  sandboxSettings.down.clear();
  resetClock();
});

const captures = () => sandboxBooks.calls.filter((c) => c.startsWith('stripe capture ')).length;
const automatic = (card?: string) => paymentBody({ routing: 'stripe', capture_method: 'automatic' }, card);

describe('capture_method automatic', () => {
  it('answers the captured payment, captured once at the provider, with its balance', async () => {
    // Prepare
    const merchant = await newMerchant();
    const before = captures();
    // Act
    const res = await payments.create(merchant.apiKey, automatic());
    // Assess
    expect(res.status, res.rawBody).toBe(200);
    expect(res.body).toMatchObject({ status: 'captured', amount_captured: 2500, capture_method: 'automatic' });
    expect(captures() - before).toBe(1);
    expect(heldFor(res.body.id)).toMatchObject([{ state: 'captured', captured: 2500 }]);
    expect(await balanceTotal(merchant.apiKey)).toBe(2500);
    expect(await moneyProblems(merchant, [res.body.id])).toEqual([]);
    expect((await payments.get(merchant.apiKey, res.body.id)).body).toMatchObject({ status: 'captured', capture_method: 'automatic' });
  });

  it('manual (the default) stays authorized, and a decline answers 402 with nothing captured', async () => {
    const merchant = await newMerchant();
    const manual = await payments.create(merchant.apiKey, paymentBody({ routing: 'stripe' }));
    expect(manual.body).toMatchObject({ status: 'succeeded', amount_captured: 0, capture_method: 'manual' });
    const before = captures();
    const declined = await payments.create(merchant.apiKey, automatic(CARDS.genericDecline));
    expect(declined.status).toBe(402);
    expect(captures()).toBe(before);
  });

  it.each(['crash_before', 'crash_after'] as const)(
    'a create that stopped between authorization and capture (%s) is captured once by its retry with the same key',
    async (fault) => {
      // Prepare
      const merchant = await newMerchant();
      const headers = { 'Idempotency-Key': `auto-${Math.random()}` };
      const body = automatic();
      const before = captures();
      // Act: the first run dies at the capture's begin; the client retries with the same key, then once more
      atCaptureBegin.fault = fault;
      const first = await payments.create(merchant.apiKey, body, headers);
      const retry = await retryUntilAnswered(() => payments.create(merchant.apiKey, body, headers));
      const replay = await payments.create(merchant.apiKey, body, headers);
      // Assess
      expect(first.status).toBe(500);
      expect(retry.status, retry.rawBody).toBe(200);
      expect(retry.body).toMatchObject({ status: 'captured', amount_captured: 2500 });
      expect(replay.body.id).toBe(retry.body.id);
      expect(captures() - before).toBe(1);
      expect(heldFor(retry.body.id)).toMatchObject([{ state: 'captured', captured: 2500 }]);
      expect((await payments.list(merchant.apiKey)).body.total).toBe(1);
      expect(await moneyProblems(merchant, [retry.body.id])).toEqual([]);
    },
  );

  it('a capture the provider cannot take leaves the payment authorized, says so naming it, and the retry captures it', async () => {
    // Prepare
    const merchant = await newMerchant();
    const headers = { 'Idempotency-Key': `auto-${Math.random()}` };
    const body = automatic();
    // Act: stripe goes down between the authorization and the capture
    atCaptureBegin.fault = 'provider_down';
    const first = await payments.create(merchant.apiKey, body, headers);
    // Assess: 500 naming the payment, which is authorized (succeeded) and holds the money, nothing captured
    expect(first.status).toBe(500);
    expect(first.body.error).toMatchObject({ code: 'provider_outcome_unknown', payment_id: expect.stringMatching(/^pay_/) });
    expect(first.body.error.message).toMatch(/is authorized \(succeeded\) but not captured yet: the provider could not be reached/);
    const id = first.body.error.payment_id as string;
    expect(await storedPayment(merchant.merchantId, id)).toMatchObject({ status: 'succeeded', amount_captured: 0 });
    expect(heldFor(id)).toMatchObject([{ state: 'authorized', captured: 0 }]);
    expect(await balanceTotal(merchant.apiKey)).toBe(0);

    // Act: stripe is back; the client retries with the same key
    sandboxSettings.down.clear();
    const retry = await retryUntilAnswered(() => payments.create(merchant.apiKey, body, headers));
    // Assess
    expect(retry.status, retry.rawBody).toBe(200);
    expect(retry.body).toMatchObject({ id, status: 'captured', amount_captured: 2500 });
    expect(await moneyProblems(merchant, [id])).toEqual([]);
  });

  it('a capture the provider refuses answers 400 provider_refused naming the payment, which stays authorized', async () => {
    const merchant = await newMerchant();
    atCaptureBegin.fault = 'voided_meanwhile';
    const res = await payments.create(merchant.apiKey, automatic());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'provider_refused', payment_id: expect.stringMatching(/^pay_/) });
    expect(res.body.error.message).toMatch(/authorized \(succeeded\) but not captured: stripe refused the capture/);
    expect(await storedPayment(merchant.merchantId, res.body.error.payment_id)).toMatchObject({ status: 'succeeded', amount_captured: 0 });
  });
});
