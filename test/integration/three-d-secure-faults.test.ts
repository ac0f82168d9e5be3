import { afterEach, describe, expect, it, vi } from 'vitest';
// The reconciler reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('three-d-secure-faults'));
import { clock } from '../../shared/model/clock.ts';
import { reconcile } from '../../shared/domain/reconciler.ts';
import { type Fault, heldFor, moneyProblems, moveClock, resetClock, storedPayment, withFault } from '../support/faults.ts';
import { newMerchant } from '../support/merchant.ts';
import { payments } from '../support/payments.ts';
import { allowShop, sandboxChallenge, shopperReturns } from '../support/three-d-secure.ts';

/**
 * The shopper's return from a 3-D Secure challenge at the sandbox under faults: each DynamoDB command of the return
 * fails before reaching the table or loses its answer after the table applied it, then the shopper returns again, or
 * nobody does and the reconciler runs after the shopper's hour. Whatever the fault: one authorization at most, the
 * payment in the provider's state, nothing left `requires_action` or with an operation open, the ledger exact.
 */
type Merchant = Awaited<ReturnType<typeof newMerchant>>;
const CHALLENGES = '4000000000003220';
const HOUR = 60 * 60_000;

afterEach(() => resetClock());

/** A payment waiting for the shopper, who passed the challenge: the return page's URL they come back to. */
async function challengePassed(merchant: Merchant) {
  await allowShop(merchant.apiKey);
  const created = await payments.create(merchant.apiKey, {
    amount: 2500,
    currency: 'usd',
    routing: 'stripe',
    return_url: 'https://shop.example/done',
    payment_method: { type: 'card', card: { number: CHALLENGES, exp_month: 12, exp_year: 2034, cvc: '123' } },
  });
  expect(created.body.status, created.rawBody).toBe('requires_action');
  return { id: created.body.id as string, returnPage: await sandboxChallenge(created.body.next_action.redirect_to_url.url) };
}

/** The reconciler as its schedule runs it once the shopper's hour is over. */
async function reconcileAfterTheHour(): Promise<void> {
  moveClock(HOUR + 2 * 60_000);
  await reconcile(clock.now());
}

/** How many DynamoDB commands one return sends, counted on a return without faults. */
async function commandsOfAReturn(): Promise<number> {
  const merchant = await newMerchant();
  const { returnPage } = await challengePassed(merchant);
  const { result, commands } = await withFault({ kind: 'none' }, () => shopperReturns(returnPage));
  expect((result as { status: number }).status).toBe(303);
  return commands;
}

const faultsAtEachStep = async (): Promise<Fault[]> =>
  Array.from({ length: await commandsOfAReturn() }, (_, i) =>
    (['before', 'after'] as const).map((when): Fault => ({ kind: 'dynamodb', step: i + 1, when })),
  ).flat();

describe('the return under a DynamoDB fault at each step', () => {
  it('then the shopper returns again: succeeded once, one authorization, nothing open', async () => {
    for (const fault of await faultsAtEachStep()) {
      // Prepare
      const merchant = await newMerchant();
      const { id, returnPage } = await challengePassed(merchant);
      // Act
      await withFault(fault, () => shopperReturns(returnPage));
      moveClock(2 * 60_000);
      const again = await shopperReturns(returnPage);
      // Assess
      const context = JSON.stringify(fault);
      expect(again.status, context).toBe(303);
      expect((await storedPayment(merchant.merchantId, id))?.status, context).toBe('succeeded');
      expect(heldFor(id), context).toHaveLength(1);
      expect(await moneyProblems(merchant, [id]), context).toEqual([]);
      resetClock();
    }
  });

  it('then nobody returns: the reconciler after the hour ends it in the provider’s state, nothing open', async () => {
    for (const fault of await faultsAtEachStep()) {
      // Prepare
      const merchant = await newMerchant();
      const { id, returnPage } = await challengePassed(merchant);
      // Act
      await withFault(fault, () => shopperReturns(returnPage));
      await reconcileAfterTheHour();
      // Assess: authorized at the sandbox exactly when the payment says so
      const context = JSON.stringify(fault);
      const stored = await storedPayment(merchant.merchantId, id);
      expect(stored?.status, context).toBe(heldFor(id).length ? 'succeeded' : 'failed');
      if (stored?.status === 'failed') expect(stored.decline_code, context).toBe('authentication_required');
      expect(await moneyProblems(merchant, [id]), context).toEqual([]);
      resetClock();
    }
  });
});

describe('the provider’s answer lost at the return', () => {
  it.each(['accept_then_drop', 'accept_then_timeout'] as const)(
    '%s: the payment waits on; the shopper returning again, or the reconciler after the hour, finishes it once',
    async (fault) => {
      for (const then of ['returns again', 'reconciler'] as const) {
        // Prepare
        const merchant = await newMerchant();
        const { id, returnPage } = await challengePassed(merchant);
        // Act: the sandbox authorizes, and its answer never arrives
        const { result } = await withFault({ kind: 'provider', providers: ['stripe'], fault }, () => shopperReturns(returnPage));
        const meanwhile = await storedPayment(merchant.merchantId, id);
        if (then === 'returns again') await shopperReturns(returnPage);
        else await reconcileAfterTheHour();
        // Assess
        const context = `${then}: ${(result as { status?: number }).status}`;
        expect(meanwhile?.status, context).toBe('requires_action');
        expect((await storedPayment(merchant.merchantId, id))?.status, context).toBe('succeeded');
        expect(heldFor(id), context).toHaveLength(1);
        expect(await moneyProblems(merchant, [id]), context).toEqual([]);
        resetClock();
      }
    },
  );
});

describe('a return that stopped after taking the payment over', () => {
  it('the reconciler before the hour leaves the payment to the shopper, whose return then finishes it', async () => {
    // Prepare: the return dies right after its take-over was written (its answer lost)
    const merchant = await newMerchant();
    const { id, returnPage } = await challengePassed(merchant);
    await withFault({ kind: 'dynamodb', step: 2, when: 'after' }, () => shopperReturns(returnPage));
    // Act: that run's lease runs out; the reconciler runs, then the shopper returns again
    moveClock(2 * 60_000);
    await reconcile(clock.now());
    const between = await storedPayment(merchant.merchantId, id);
    await shopperReturns(returnPage);
    // Assess
    expect(between).toMatchObject({ status: 'requires_action', op: { kind: 'authenticate' } });
    expect(between!.op!.lease_until).toBeGreaterThan(clock.now() + 50 * 60_000);
    expect((await storedPayment(merchant.merchantId, id))?.status).toBe('succeeded');
    expect(await moneyProblems(merchant, [id])).toEqual([]);
  });
});

describe('two returns at once', () => {
  it('under a DynamoDB fault at each step, then a third return: one authorization, succeeded', async () => {
    const steps = 2 * (await commandsOfAReturn());
    for (let step = 1; step <= steps; step++) {
      for (const when of ['before', 'after'] as const) {
        // Prepare
        const merchant = await newMerchant();
        const { id, returnPage } = await challengePassed(merchant);
        // Act
        const { result } = await withFault({ kind: 'dynamodb', step, when }, () =>
          Promise.all([shopperReturns(returnPage), shopperReturns(returnPage)]),
        );
        moveClock(2 * 60_000);
        const third = await shopperReturns(returnPage);
        // Assess
        const context = `${when} step ${step}: ${result instanceof Error ? result.message : result.map((r) => r.status)}`;
        expect(third.status, context).toBe(303);
        expect((await storedPayment(merchant.merchantId, id))?.status, context).toBe('succeeded');
        expect(heldFor(id), context).toHaveLength(1);
        expect(await moneyProblems(merchant, [id]), context).toEqual([]);
        resetClock();
      }
    }
  });
});

describe('a void racing the return', () => {
  it('exactly one wins: voided with nothing held, or succeeded with the void refused', async () => {
    for (let round = 0; round < 6; round++) {
      // Prepare
      const merchant = await newMerchant();
      const { id, returnPage } = await challengePassed(merchant);
      // Act
      const [voided, back] = await Promise.all([payments.void(merchant.apiKey, id), shopperReturns(returnPage)]);
      // Assess
      const stored = await storedPayment(merchant.merchantId, id);
      const context = `round ${round}: void ${voided.status} ${voided.rawBody}`;
      expect(back.status, context).toBe(303);
      if (voided.status === 200) {
        expect(stored?.status, context).toBe('voided');
        expect(heldFor(id), context).toEqual([]);
      } else {
        expect(voided.status, context).toBe(409);
        expect(stored?.status, context).toBe('succeeded');
        expect(heldFor(id), context).toHaveLength(1);
      }
      expect(await moneyProblems(merchant, [id]), context).toEqual([]);
    }
  });
});
