import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
// The renewal scanner reads every merchant's due subscriptions: this file's own table holds only its own.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('renewals', { stream: true }));
import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as markPaid } from '../../functions/invoices/mark-paid.ts';
import { handler as cancel } from '../../functions/subscriptions/cancel.ts';
import { handler as create } from '../../functions/subscriptions/create.ts';
import { handler as list } from '../../functions/subscriptions/list.ts';
import { handler as pause } from '../../functions/subscriptions/pause.ts';
import { handler as resume } from '../../functions/subscriptions/resume.ts';
import { handler as configure } from '../../functions/webhooks/configure.ts';
import { handler as renewalWorker } from '../../functions/workers/renewal.ts';
import { handler as scanner } from '../../functions/workers/renewal-scanner.ts';
import { handler as deliveryWorker } from '../../functions/workers/webhook-delivery.ts';
import { config } from '../../shared/config.ts';
import { addDays, billingDateAfter } from '../../shared/model/billing-dates.ts';
import { chargeCardOnFile } from '../../shared/domain/card-on-file.ts';
import { clock } from '../../shared/model/clock.ts';
import { newId } from '../../shared/model/ids.ts';
import { createInvoice } from '../../shared/domain/invoices.ts';
import { reconcileLeased } from '../../shared/domain/reconciler.ts';
import { LEASE_MS } from '../../shared/domain/operations.ts';
import { periodRenewal } from '../../shared/domain/period-renewal.ts';
import { renewalsQueue } from '../../shared/domain/renewals.ts';
import { PERIOD } from '../../shared/model/state-machines.ts';
import { commit } from '../../shared/store/commit.ts';
import { emailSender } from '../../shared/messaging/email.ts';
import { eventsQueue, type EventsMessage } from '../../shared/events/queue.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import type { RenewalMessageBody } from '../../shared/schemas/subscriptions.ts';
import { getCustomer } from '../../shared/store/customers.ts';
import { listEvents } from '../../shared/store/events.ts';
import { listInvoices } from '../../shared/store/invoices.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { expiredOperations } from '../../shared/store/leases.ts';
import { getPeriod, loadSubscription, stepClaimedPeriod } from '../../shared/store/subscriptions.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant, testActor, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';
import { streamEvents } from '../support/stream.ts';

/** A worker's claim on the first attempt of a period (the begin of its renewal), made by a worker that then died. */
async function claimPeriod(subscriptionId: string, periodStart: string) {
  const message = { subscription_id: subscriptionId, period_start: periodStart, attempt: 0 };
  const { begin } = await periodRenewal.start({ subscription: (await loadSubscription(subscriptionId))!, message });
  expect(await commit(begin)).toBe('committed');
  return getPeriod(subscriptionId, periodStart);
}

/** Stripe's "attaches, but later charges fail": the payment succeeds, renewals on its card-on-file token decline. */
const CHARGES_DECLINE_LATER = '4000000000000341';

const call = {
  create: (key: string, body: unknown) => invokeHttp(create, apiEvent({ method: 'POST', path: '/api/subscriptions', headers: bearer(key), body })),
  list: (key: string) => invokeHttp(list, apiEvent({ method: 'GET', path: '/api/subscriptions', headers: bearer(key) })),
  pause: (key: string, id: string) => invokeHttp(pause, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/pause`, headers: bearer(key) })),
  resume: (key: string, id: string) => invokeHttp(resume, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/resume`, headers: bearer(key) })),
  cancel: (key: string, id: string) => invokeHttp(cancel, apiEvent({ method: 'PUT', path: `/api/subscriptions/${id}/cancel`, headers: bearer(key) })),
  markPaid: (key: string, id: string) =>
    invokeHttp(markPaid, apiEvent({ method: 'PUT', path: `/api/invoices/${id}/mark-paid`, headers: bearer(key) })),
  configure: (key: string, body: unknown) =>
    invokeHttp(configure, apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: bearer(key), body })),
};

const realNow = clock.now;
const realRenewalsSend = renewalsQueue.send;
const realEventsSend = eventsQueue.send;
const realPublicUrl = config.PUBLIC_API_URL;
/** What went to the events queue (the table stream's sends), for the webhook delivery worker. */
let eventMessages: EventsMessage[] = [];

beforeEach(() => {
  eventMessages = [];
  eventsQueue.send = async (messages) => void eventMessages.push(...messages);
  // Outside a request, invoice links are made from the public URL (npm start sets it to the local gateway).
  config.PUBLIC_API_URL = 'http://localhost:3000';
});
afterEach(() => {
  clock.now = realNow;
  renewalsQueue.send = realRenewalsSend;
  eventsQueue.send = realEventsSend;
  config.PUBLIC_API_URL = realPublicUrl;
});

/** The clock at noon UTC of a date (the scanner and the worker read "today" from it). */
const at = (date: string) => {
  const offset = Date.parse(`${date}T12:00:00.000Z`) - realNow();
  clock.now = () => realNow() + offset;
};

/** Runs the scheduled scanner and returns what it enqueued for these subscriptions (the send is captured). */
async function scan(...subscriptionIds: string[]): Promise<RenewalMessageBody[]> {
  const sent: RenewalMessageBody[] = [];
  renewalsQueue.send = async (messages) => void sent.push(...messages);
  try {
    await scanner({}, fakeContext());
  } finally {
    renewalsQueue.send = realRenewalsSend;
  }
  return sent.filter((m) => subscriptionIds.includes(m.subscription_id));
}

/** The renewal worker as Lambda runs it, on one batch of the renewals queue. */
const renew = (messages: unknown[]) =>
  renewalWorker(
    queueEvent(
      messages.map((m) => JSON.stringify(m)),
      'renewals',
    ),
    fakeContext(),
  );

const chargesOf = async (merchantId: string, subscriptionId: string) =>
  (await listPayments(testOwner(merchantId), {}, { limit: 100 })).data.filter((p) => p.metadata.subscription_id === subscriptionId);
const invoicesOf = async (merchantId: string) => (await listInvoices(testOwner(merchantId), {}, { limit: 100 })).data;
const eventsOf = async (merchantId: string, type: string) => (await listEvents(testOwner(merchantId), { event: type }, { limit: 100 })).data;
const subscription = async (id: string) => (await loadSubscription(id))!;

const monthly = (customerId: string) => ({ customer_id: customerId, plan: 'Pro monthly', amount: 2900, currency: 'eur', interval: 'month' });

/** A merchant whose customer's card on file declines later charges, subscribed monthly; `due` is its first renewal. */
async function monthlyOnDecliningCard() {
  const { apiKey, customerId, merchantId } = await newMerchant();
  expect((await payments.create(apiKey, paymentBody({}, CHARGES_DECLINE_LATER))).status).toBe(200);
  const sub = (await call.create(apiKey, monthly(customerId))).body;
  return { apiKey, merchantId, sub, due: sub.next_billing as string };
}

describe('the renewal scanner', () => {
  it('enqueues one message for a due subscription and none for paused, cancelled or not yet due ones', async () => {
    // Prepare: four daily subscriptions; one paused, one cancelled, one starting tomorrow
    const { apiKey, customerId } = await newMerchant();
    const daily = { customer_id: customerId, plan: 'Daily', amount: 100, currency: 'usd', interval: 'day' };
    const due = (await call.create(apiKey, daily)).body;
    const paused = (await call.create(apiKey, daily)).body;
    const cancelled = (await call.create(apiKey, daily)).body;
    const later = (await call.create(apiKey, { ...daily, start_date: due.next_billing })).body;
    await call.pause(apiKey, paused.id);
    await call.cancel(apiKey, cancelled.id);
    // Act
    at(due.next_billing);
    const sent = await scan(due.id, paused.id, cancelled.id, later.id);
    // Assess
    expect(sent).toEqual([{ subscription_id: due.id, period_start: due.next_billing }]);
    expect(later.next_billing).toBe(addDays(due.next_billing, 1));
  });

  it('finds a subscription due days ago (the schedule did not run) under its own period', async () => {
    const { apiKey, customerId } = await newMerchant();
    const sub = (await call.create(apiKey, monthly(customerId))).body;
    at(addDays(sub.next_billing, 4));
    expect(await scan(sub.id)).toEqual([{ subscription_id: sub.id, period_start: sub.next_billing }]);
  });

  it('sends what it finds to the renewals queue', async () => {
    // The real send (the local SQS of the test run) takes the scanner's messages without error.
    await expect(
      realRenewalsSend.call(renewalsQueue, [{ subscription_id: 'sub_01jd0z8x9k2m3n4p5q6r7s8t9v', period_start: '2026-01-01' }]),
    ).resolves.toBeUndefined();
  });
});

describe('renewing a period', () => {
  it('charges the card on file once however often the period runs, pays the invoice, and the endpoint receives subscription.renewed', async () => {
    // Prepare: a customer whose successful payment left a card on file, an endpoint for subscription.renewed
    const { apiKey, customerId, merchantId } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    expect((await getCustomer(testOwner(merchantId), customerId))?.card_on_file).toMatchObject({ provider_token: expect.stringMatching(/^tok_/) });
    const receiver = await startReceiver([200]);
    const hook = (await call.configure(apiKey, { url: receiver.url, events: ['subscription.renewed'] })).body;
    const sub = (await call.create(apiKey, { customer_id: customerId, plan: 'Daily coffee', amount: 450, currency: 'usd', interval: 'day' })).body;
    try {
      // Act: the due date comes; the scanner's message is delivered twice at once, then once more
      at(sub.next_billing);
      const messages = await scan(sub.id);
      const concurrent = await renew([messages[0], messages[0]]);
      const again = await renew(messages);
      // Assess: one charge, one invoice, paid by it; the subscription moved on by one day
      expect(messages).toHaveLength(1);
      expect(concurrent).toEqual({ batchItemFailures: [] });
      expect(again).toEqual({ batchItemFailures: [] });
      const charges = await chargesOf(merchantId, sub.id);
      expect(charges).toEqual([
        expect.objectContaining({ status: 'captured', amount: 450, amount_captured: 450, currency: 'USD', customer_id: customerId }),
      ]);
      // …with the card-on-file token, merchant-initiated: the customer is not there
      const held = [...sandboxBooks.authorizations.values()].filter((a) => a.paymentId === charges[0]!.id);
      expect(held).toMatchObject([{ paidWith: 'token', initiator: { type: 'merchant', networkTransactionId: null } }]);
      const invoices = await invoicesOf(merchantId);
      expect(invoices).toEqual([
        expect.objectContaining({
          subscription_id: sub.id,
          period_start: sub.next_billing,
          due_date: sub.next_billing,
          status: 'paid',
          payment_id: charges[0]!.id,
          total: 450,
          currency: 'USD',
          items: [{ name: 'Daily coffee', amount: 450, quantity: 1 }],
        }),
      ]);
      const [listed] = (await call.list(apiKey)).body.data;
      expect(listed).toMatchObject({
        id: sub.id,
        status: 'active',
        current_period_start: sub.next_billing,
        next_billing: addDays(sub.next_billing, 1),
        latest_invoice: invoices[0]!.id,
      });
      expect(await scan(sub.id)).toEqual([]);
      expect(await eventsOf(merchantId, 'subscription.renewed')).toHaveLength(1);

      // The webhook: the delivery worker runs on what the stream sent (with the real clock: signatures carry the time)
      clock.now = realNow;
      await streamEvents(merchantId);
      const delivery = await deliveryWorker(
        queueEvent(
          eventMessages.map((m) => JSON.stringify(m)),
          'events',
        ),
        fakeContext(),
      );
      expect(delivery).toEqual({ batchItemFailures: [] });
      await receiver.waitFor(1);
      const received = receiver.received[0]!;
      const event = new Webhook(hook.secret).verify(received.body, received.headers as Record<string, string>);
      expect(event).toMatchObject({
        type: 'subscription.renewed',
        id: expect.stringMatching(/^evt_/),
        data: {
          object: {
            id: sub.id,
            object: 'subscription',
            status: 'active',
            next_billing: addDays(sub.next_billing, 1),
            latest_invoice: invoices[0]!.id,
          },
        },
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('e-mails the invoice when the customer has no card on file, and renews', async () => {
    // Prepare: the merchant's customer never paid
    const { apiKey, customerId, merchantId } = await newMerchant();
    const sub = (await call.create(apiKey, monthly(customerId))).body;
    // Act
    at(sub.next_billing);
    const messages = await scan(sub.id);
    const result = await renew(messages);
    await renew(messages);
    // Assess
    expect(result).toEqual({ batchItemFailures: [] });
    const invoices = await invoicesOf(merchantId);
    expect(invoices).toEqual([
      expect.objectContaining({
        status: 'sent',
        channel: 'email',
        sent_to: 'jane@example.com',
        total: 2900,
        currency: 'EUR',
        subscription_id: sub.id,
        payment_id: null,
      }),
    ]);
    const mails = listLocalOutbox().filter((m) => m.text.includes(invoices[0]!.id));
    expect(mails).toEqual([
      expect.objectContaining({ channel: 'email', to: 'jane@example.com', subject: expect.stringContaining(invoices[0]!.number) }),
    ]);
    expect(mails[0]!.text).toContain('http://localhost:3000/api/invoices/');
    expect((await listPayments(testOwner(merchantId), {}, { limit: 10 })).total).toBe(0);
    const after = await subscription(sub.id);
    expect(after).toMatchObject({
      status: 'active',
      current_period_start: sub.next_billing,
      next_billing: billingDateAfter({ anchor: sub.current_period_start, interval: 'month', interval_count: 1 }, sub.next_billing),
      latest_invoice: invoices[0]!.id,
    });
    expect(await eventsOf(merchantId, 'subscription.renewed')).toHaveLength(1);
  });

  it('e-mails the invoice once more when the worker died sending it: one invoice, one renewal, whether the reconciler or the next run finishes', async () => {
    // Prepare: two subscriptions of customers without a card; each one's worker dies while e-mailing the invoice
    const { apiKey, merchantId } = await newMerchant();
    const subs = [];
    for (const email of ['ann@example.com', 'bob@example.com']) {
      const customer = (
        await invokeHttp(createCustomer, apiEvent({ method: 'POST', path: '/api/customers', headers: bearer(apiKey), body: { email } }))
      ).body;
      subs.push((await call.create(apiKey, monthly(customer.id))).body);
    }
    at(subs[0].next_billing);
    const messages = await scan(...subs.map((s) => s.id));
    for (const message of messages) {
      let reached!: () => void;
      const stuck = new Promise<void>((resolve) => (reached = resolve));
      const send = vi.spyOn(emailSender, 'send').mockImplementationOnce(() => {
        reached();
        return new Promise<never>(() => {});
      });
      void renew([message]);
      await stuck;
      send.mockRestore();
    }
    const [first, second] = subs;
    const invoiceOf = async (subId: string) => (await invoicesOf(merchantId)).find((i) => i.subscription_id === subId)!;
    const started = clock.now();
    // Act: the first one's send is finished by the reconciler, then its renewal message runs again; the second one's
    // renewal message runs again after the worker's lease, before any reconciler run
    clock.now = () => started + LEASE_MS + 1_000;
    const leased = (await expiredOperations(clock.now(), 1_000)).filter((l) => l.entity === 'invoice' && l.invoice.subscription_id === first.id);
    const reconciled = await Promise.all(leased.map(reconcileLeased));
    clock.now = () => started + LEASE_MS + 1_000;
    const rerun = await renew(messages);
    // Assess: per subscription one invoice, sent, e-mailed once (the dead run's mail never left), renewed once
    expect(reconciled).toEqual([true]);
    expect(rerun).toEqual({ batchItemFailures: [] });
    const invoices = await invoicesOf(merchantId);
    expect(invoices.map((i) => i.number).sort()).toEqual(['INV-000001', 'INV-000002']);
    for (const sub of [first, second]) {
      const invoice = await invoiceOf(sub.id);
      expect(invoice).toMatchObject({ status: 'sent', channel: 'email' });
      expect(listLocalOutbox().filter((m) => m.text.includes(invoice.id))).toHaveLength(1);
      expect(await subscription(sub.id)).toMatchObject({ status: 'active', current_period_start: sub.next_billing, latest_invoice: invoice.id });
    }
    expect(await eventsOf(merchantId, 'subscription.renewed')).toHaveLength(2);
  });

  it('goes past_due on a declined charge and recovers on the day-1 retry once the customer paid with a good card', async () => {
    // Prepare: a card on file whose later charges decline
    const { apiKey, merchantId, sub, due } = await monthlyOnDecliningCard();

    // Act 1: the renewal declines
    at(due);
    const [first] = await scan(sub.id);
    const declined = await renew([first]);
    await renew([first]);
    // Assess 1: past_due, the retry a day later, one failed charge, one open invoice
    expect(declined).toEqual({ batchItemFailures: [] });
    expect(await subscription(sub.id)).toMatchObject({ status: 'past_due', next_billing: due, retry_at: addDays(due, 1), retry_attempt: 1 });
    expect(await chargesOf(merchantId, sub.id)).toEqual([expect.objectContaining({ status: 'failed', decline_code: 'generic_decline' })]);
    const [invoice] = await invoicesOf(merchantId);
    expect(invoice).toMatchObject({ status: 'draft', subscription_id: sub.id });
    const pastDue = await eventsOf(merchantId, 'subscription.past_due');
    expect(pastDue.map((e) => e.data.object)).toEqual([expect.objectContaining({ id: sub.id, status: 'past_due', retry_at: addDays(due, 1) })]);
    expect(await scan(sub.id)).toEqual([]); // not again before the retry date

    // Act 2: the customer pays with a good card (a new card on file), the day-1 retry runs
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    at(addDays(due, 1));
    const retries = await scan(sub.id);
    const recovered = await renew(retries);
    await renew(retries);
    // Assess 2: active again, the same invoice paid by the retry's charge, next period scheduled
    expect(retries).toEqual([{ subscription_id: sub.id, period_start: due, attempt: 1 }]);
    expect(recovered).toEqual({ batchItemFailures: [] });
    const charges = await chargesOf(merchantId, sub.id);
    expect(charges.map((c) => c.status).sort()).toEqual(['captured', 'failed']);
    const paid = charges.find((c) => c.status === 'captured')!;
    expect(await invoicesOf(merchantId)).toEqual([expect.objectContaining({ id: invoice!.id, status: 'paid', payment_id: paid.id })]);
    const after = await subscription(sub.id);
    expect(after).toMatchObject({ status: 'active', current_period_start: due, retry_at: null, retry_attempt: null, latest_invoice: invoice!.id });
    expect(after.next_billing).toBe(billingDateAfter({ anchor: sub.current_period_start, interval: 'month', interval_count: 1 }, due));
    expect(await eventsOf(merchantId, 'subscription.renewed')).toHaveLength(1);
  });

  it('renews without charging when the merchant marked the past_due invoice paid before the retry', async () => {
    // Prepare: a declined renewal, then the merchant collects the invoice another way and a good card is on file
    const { apiKey, merchantId, sub, due } = await monthlyOnDecliningCard();
    at(due);
    await renew(await scan(sub.id));
    const [invoice] = await invoicesOf(merchantId);
    expect((await call.markPaid(apiKey, invoice!.id)).status).toBe(200);
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);

    // Act: the day-1 retry runs (twice, as SQS may deliver it)
    at(addDays(due, 1));
    const retries = await scan(sub.id);
    await renew(retries);
    await renew(retries);

    // Assess: no second charge, the invoice keeps the merchant's payment, the subscription renews
    expect(retries).toEqual([{ subscription_id: sub.id, period_start: due, attempt: 1 }]);
    expect((await chargesOf(merchantId, sub.id)).map((c) => c.status)).toEqual(['failed']);
    expect(await invoicesOf(merchantId)).toEqual([expect.objectContaining({ id: invoice!.id, status: 'paid', payment_id: null })]);
    expect(await subscription(sub.id)).toMatchObject({ status: 'active', current_period_start: due, retry_at: null, latest_invoice: invoice!.id });
    expect(await eventsOf(merchantId, 'subscription.renewed')).toHaveLength(1);
  });

  it('retries a soft decline on days 1, 3, 5 and 7, then stays past_due out of the renewal index until the merchant cancels', async () => {
    const { apiKey, merchantId, sub, due } = await monthlyOnDecliningCard();
    at(due);
    await renew(await scan(sub.id));

    const seen: unknown[] = [];
    for (const [attempt, day, nextRetry] of [
      [1, 1, 3],
      [2, 3, 5],
      [3, 5, 7],
      [4, 7, null],
    ] as const) {
      at(addDays(due, day - 1));
      expect(await scan(sub.id)).toEqual([]); // nothing the day before
      at(addDays(due, day));
      const messages = await scan(sub.id);
      seen.push(...messages);
      await renew(messages);
      expect(await subscription(sub.id)).toMatchObject({
        status: 'past_due',
        next_billing: due,
        retry_attempt: nextRetry === null ? null : attempt + 1,
        retry_at: nextRetry === null ? null : addDays(due, nextRetry),
      });
    }

    expect(seen).toEqual([1, 2, 3, 4].map((attempt) => ({ subscription_id: sub.id, period_start: due, attempt })));
    at(addDays(due, 40));
    expect(await scan(sub.id)).toEqual([]);
    expect(await chargesOf(merchantId, sub.id)).toHaveLength(5);
    expect(await invoicesOf(merchantId)).toEqual([
      expect.objectContaining({ status: 'draft', next_retry_at: null, retry_reason: expect.stringContaining('generic_decline is a soft decline') }),
    ]);
    expect((await eventsOf(merchantId, 'subscription.past_due')).map((e) => e.data.object.retry_at)).toEqual([
      null,
      addDays(due, 7),
      addDays(due, 5),
      addDays(due, 3),
      addDays(due, 1),
    ]);
    // A late duplicate of the last retry changes nothing
    await renew([{ subscription_id: sub.id, period_start: due, attempt: 4 }]);
    expect(await chargesOf(merchantId, sub.id)).toHaveLength(5);
    // A past_due subscription cannot be paused or resumed; the merchant can cancel it
    for (const [move, reason] of [
      [call.pause, 'a past due subscription cannot be paused'],
      [call.resume, 'a past due subscription cannot be resumed'],
    ] as const) {
      const res = await move(apiKey, sub.id);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', message: `Invalid request body: ${reason}` });
    }
    const cancelled = await call.cancel(apiKey, sub.id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', retry_at: null });
  });

  it('does nothing for a period not due yet, a paused or cancelled subscription, a retry out of turn or an unknown subscription', async () => {
    const { apiKey, customerId, merchantId } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    const early = (await call.create(apiKey, monthly(customerId))).body;
    const paused = (await call.create(apiKey, monthly(customerId))).body;
    const cancelled = (await call.create(apiKey, monthly(customerId))).body;
    await call.pause(apiKey, paused.id);
    await call.cancel(apiKey, cancelled.id);
    // A message for the due date, run the day before it
    at(addDays(early.next_billing, -1));
    const result = await renew([
      { subscription_id: early.id, period_start: early.next_billing },
      { subscription_id: early.id, period_start: early.next_billing, attempt: 1 },
      { subscription_id: 'sub_01jd0z8x9k2m3n4p5q6r7s8t9v', period_start: early.next_billing },
    ]);
    // Messages enqueued before the pause and the cancel, run on the due date
    at(paused.next_billing);
    const stale = await renew([
      { subscription_id: paused.id, period_start: paused.next_billing },
      { subscription_id: cancelled.id, period_start: cancelled.next_billing },
      { subscription_id: early.id, period_start: early.next_billing, attempt: 2 },
      { subscription_id: early.id, period_start: addDays(early.next_billing, -1) },
    ]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(stale).toEqual({ batchItemFailures: [] });
    expect(await invoicesOf(merchantId)).toEqual([]);
    expect((await listPayments(testOwner(merchantId), {}, { limit: 10 })).total).toBe(1);
    expect(await subscription(paused.id)).toMatchObject({ status: 'paused', next_billing: paused.next_billing });
  });

  it('never charges twice when workers race, and takes over a claim abandoned before the charge once its lease ran out', async () => {
    // Prepare: a worker claimed the period and died before doing anything; another died while charging
    const { apiKey, customerId, merchantId } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    const abandoned = (await call.create(apiKey, monthly(customerId))).body;
    const stuck = (await call.create(apiKey, monthly(customerId))).body;
    at(abandoned.next_billing);
    const dead = await claimPeriod(abandoned.id, abandoned.next_billing);
    const charging = await claimPeriod(stuck.id, stuck.next_billing);
    expect(await stepClaimedPeriod(charging!, PERIOD.charge, {}, new Date(clock.now()).toISOString())).toBe(true);
    // Act: while the lease holds, racing workers do nothing; after it, one of them finishes the renewal
    const messages = await scan(abandoned.id, stuck.id);
    const whileHeld = await Promise.all([renew(messages), renew(messages)]);
    const chargesWhileHeld = (await listPayments(testOwner(merchantId), {}, { limit: 10 })).total;
    at(abandoned.next_billing);
    const later = clock.now() + LEASE_MS + 1000;
    clock.now = () => later;
    const afterLease = await Promise.all([renew(messages), renew(messages), renew(messages)]);
    // Assess
    expect(dead).toMatchObject({ state: 'open', attempt: 0 });
    expect(messages).toHaveLength(2);
    expect([...whileHeld, ...afterLease].every((r) => r.batchItemFailures.length === 0)).toBe(true);
    expect(chargesWhileHeld).toBe(1);
    expect(await chargesOf(merchantId, abandoned.id)).toEqual([expect.objectContaining({ status: 'captured' })]);
    expect(await subscription(abandoned.id)).toMatchObject({ status: 'active', current_period_start: abandoned.next_billing });
    expect(await getPeriod(abandoned.id, abandoned.next_billing)).toMatchObject({ state: 'settled', outcome: 'charged', attempt: 0 });
    // The period whose charge may have happened is never charged again and waits for someone to look at it
    expect(await chargesOf(merchantId, stuck.id)).toEqual([]);
    expect(await subscription(stuck.id)).toMatchObject({ status: 'active', next_billing: stuck.next_billing });
    expect(await getPeriod(stuck.id, stuck.next_billing)).toMatchObject({ state: 'charging' });
    expect(await invoicesOf(merchantId)).toHaveLength(1);
  });

  it('finishes a charge whose worker died: charges under the kept payment id if nothing was recorded, else uses what was', async () => {
    // Prepare: two periods left charging by dead workers, each with its payment id; one of the charges went through
    const { apiKey, customerId, merchantId } = await newMerchant();
    expect((await payments.create(apiKey, paymentBody())).status).toBe(200);
    const unrecorded = (await call.create(apiKey, monthly(customerId))).body;
    const recorded = (await call.create(apiKey, monthly(customerId))).body;
    at(unrecorded.next_billing);
    const dieWhileCharging = async (sub: { id: string; next_billing: string }) => {
      const period = (await claimPeriod(sub.id, sub.next_billing))!;
      const invoice = await createInvoice(
        testActor(merchantId),
        {
          customer_id: customerId,
          items: [{ name: 'Pro monthly', amount: 2900, quantity: 1 }],
          currency: 'EUR',
          due_date: sub.next_billing,
          tax_rate: 0,
          subscription_id: sub.id,
          period_start: sub.next_billing,
        },
        'http://localhost:3000',
      );
      const payment_id = newId('payment');
      expect(await stepClaimedPeriod(period, PERIOD.charge, { invoice_id: invoice.id, payment_id }, new Date(clock.now()).toISOString())).toBe(true);
      return { payment_id, invoice_id: invoice.id };
    };
    const lost = await dieWhileCharging(unrecorded);
    const kept = await dieWhileCharging(recorded);
    const actor = { id: merchantId, credential: 'api_key' as const, livemode: false };
    await chargeCardOnFile(actor, {
      customerId,
      amount: 2900,
      currency: 'EUR',
      paymentId: kept.payment_id,
      metadata: { subscription_id: recorded.id },
    });
    // Act: the scanner's messages run after the dead workers' leases, twice each
    const messages = await scan(unrecorded.id, recorded.id);
    const later = clock.now() + LEASE_MS + 1000;
    clock.now = () => later;
    await Promise.all([renew(messages), renew(messages)]);
    // Assess: one captured payment per period, under the kept ids; both periods renewed and their invoices paid
    expect(await chargesOf(merchantId, unrecorded.id)).toEqual([expect.objectContaining({ id: lost.payment_id, status: 'captured' })]);
    expect(await chargesOf(merchantId, recorded.id)).toEqual([expect.objectContaining({ id: kept.payment_id, status: 'captured' })]);
    for (const [sub, ids] of [
      [unrecorded, lost],
      [recorded, kept],
    ] as const) {
      expect(await getPeriod(sub.id, sub.next_billing)).toMatchObject({ state: 'settled', outcome: 'charged', payment_id: ids.payment_id });
      expect(await subscription(sub.id)).toMatchObject({ status: 'active', current_period_start: sub.next_billing });
    }
    const paid = (await invoicesOf(merchantId)).filter((i) => i.status === 'paid').map((i) => [i.id, i.payment_id]);
    expect(paid.sort()).toEqual(
      [
        [lost.invoice_id, lost.payment_id],
        [kept.invoice_id, kept.payment_id],
      ].sort(),
    );
  });

  it('fails a malformed message so that SQS retries it and finally dead-letters it', async () => {
    const result = await renewalWorker(
      queueEvent(['not json', JSON.stringify({ subscription_id: 'sub_x', period_start: '2026-01-01' })], 'renewals'),
      fakeContext(),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }, { itemIdentifier: 'm1' }] });
  });
});
