import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// The reconciler and the renewal scanner reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('renewal-faults'));
import { handler as createSubscription } from '../../functions/subscriptions/create.ts';
import { handler as renewalWorker } from '../../functions/workers/renewal.ts';
import { eventsQueue } from '../../shared/events/queue.ts';
import { providerDeadlines } from '../../shared/providers/index.ts';
import { listEvents } from '../../shared/store/events.ts';
import { listInvoices } from '../../shared/store/invoices.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { loadSubscription } from '../../shared/store/subscriptions.ts';
import { addDays } from '../../shared/model/billing-dates.ts';
import { type Fault, heldFor, moneyProblems, moveClock, openOperations, PROVIDERS, resetClock, runReconciler, withFault } from '../support/faults.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

/**
 * The renewal of one period under a fault at each of its steps: each DynamoDB command the worker sends fails before
 * reaching the table or loses its answer after the table applied it, or the provider is down, drops the connection
 * after accepting, or never answers. The queue then delivers the message again (after the worker's lease ran out)
 * until the period is renewed, and the reconciler runs. Whatever the fault: one charge of the period's amount,
 * captured once at one provider; one invoice, paid by that charge; the subscription moved on by exactly one period
 * with one `subscription.renewed`; no operation left open; the ledger exact.
 */
beforeAll(() => {
  providerDeadlines.authorizeMs = 200;
  providerDeadlines.operationMs = 200;
  // The outbox's sends are not what this suite checks (the events are read from the table).
  eventsQueue.send = async () => undefined;
});
afterEach(resetClock);

const renew = (message: object) => renewalWorker(queueEvent([message], 'renewals'), fakeContext());

/** One run: a daily subscription due today, its renewal under `fault`, redeliveries, the reconciler; then every invariant. */
async function runRenewal(fault: Fault): Promise<number> {
  // Prepare: a customer whose payment left a card on file, subscribed daily; the clock at noon of the due date
  resetClock();
  const merchant = await newMerchant();
  expect((await payments.create(merchant.apiKey, paymentBody())).status).toBe(200);
  const body = { customer_id: merchant.customerId, plan: 'Daily coffee', amount: 450, currency: 'usd', interval: 'day' };
  const sub = (await invokeHttp(createSubscription, apiEvent({ method: 'POST', path: '/api/subscriptions', headers: bearer(merchant.apiKey), body })))
    .body;
  const due: string = sub.next_billing;
  moveClock(Date.parse(`${due}T12:00:00.000Z`) - Date.now());
  const message = { subscription_id: sub.id, period_start: due };

  // Act: the message under the fault, then redelivered (each time after the worker's lease ran out) until renewed
  const { commands } = await withFault(fault, () => renew(message));
  for (let delivery = 0; delivery < 4 && (await loadSubscription(sub.id))!.next_billing === due; delivery++) {
    moveClock(3 * 60_000);
    await renew(message);
  }
  await runReconciler();

  // Assess
  const context = JSON.stringify(fault);
  const all = (await listPayments(testOwner(merchant.merchantId), {}, { limit: 100 })).data;
  const charges = all.filter((p) => p.metadata.subscription_id === sub.id);
  expect(
    charges.map((c) => [c.status, c.amount_captured]),
    context,
  ).toEqual([['captured', 450]]);
  expect(
    heldFor(charges[0]!.id).map((h) => [h.state, h.captured]),
    context,
  ).toEqual([['captured', 450]]);
  const invoices = (await listInvoices(testOwner(merchant.merchantId), {}, { limit: 100 })).data.filter((i) => i.subscription_id === sub.id);
  expect(
    invoices.map((i) => [i.period_start, i.status, i.payment_id]),
    context,
  ).toEqual([[due, 'paid', charges[0]!.id]]);
  const renewed = await loadSubscription(sub.id);
  expect([renewed?.status, renewed?.next_billing, renewed?.current_period_start], context).toEqual(['active', addDays(due, 1), due]);
  expect(await listEvents(testOwner(merchant.merchantId), { event: 'subscription.renewed' }, { limit: 10 }).then((p) => p.data.length), context).toBe(
    1,
  );
  expect(await openOperations(merchant.merchantId), context).toEqual([]);
  expect(
    await moneyProblems(
      merchant,
      all.map((p) => p.id),
    ),
    context,
  ).toEqual([]);
  return commands;
}

describe('renewal under faults', () => {
  it('at every DynamoDB command of the worker, before it reaches the table and after the table applied it', { timeout: 720_000 }, async () => {
    for (let step = 1; ; step++) {
      let commands = 0;
      for (const when of ['before', 'after'] as const) commands = Math.max(commands, await runRenewal({ kind: 'dynamodb', step, when }));
      if (commands < step) break;
    }
  });

  it.each(['down', 'accept_then_drop', 'accept_then_timeout'] as const)('at the provider: %s', async (fault) => {
    await runRenewal({ kind: 'provider', providers: PROVIDERS, fault });
  });
});
