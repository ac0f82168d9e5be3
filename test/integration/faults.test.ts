import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// The reconciler reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('faults'));
import { handler as createInvoiceFn } from '../../functions/invoices/create.ts';
import { handler as getInvoiceFn } from '../../functions/invoices/get.ts';
import { handler as sendInvoiceFn } from '../../functions/invoices/send.ts';
import { listDeliveries } from '../../shared/domain/webhooks.ts';
import { emailSender } from '../../shared/messaging/email.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { providerDeadlines } from '../../shared/providers/index.ts';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import {
  balanceTotal,
  type Fault,
  heldFor,
  moneyProblems,
  moveClock,
  openOperations,
  PROVIDERS,
  resetClock,
  retryUntilAnswered,
  runReconciler,
  storedPayment,
  withFault,
} from '../support/faults.ts';
import { apiEvent, type HttpResult, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testActor } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

type Merchant = Awaited<ReturnType<typeof newMerchant>>;

/**
 * Every money operation under a fault at each of its steps: each DynamoDB command it sends fails before reaching the
 * table or loses its answer after the table applied it, and the provider is down, or accepts and then drops the
 * connection, or accepts and never answers. The client then retries with the same Idempotency-Key once the leases
 * have run out, and the reconciler runs. Whatever the fault: the retry answers 200 with the one payment, no
 * operation is left open, no provider holds two authorizations or refunds beyond the capture, and the balance is
 * exactly captured − refunded.
 */
interface Flow {
  /** what exists before the request (a payment to capture, void or refund) */
  prepare: (m: Merchant) => Promise<string | undefined>;
  request: (m: Merchant, paymentId: string | undefined, headers: Record<string, string>) => Promise<HttpResult>;
  /** the payment's status once the request has taken effect */
  status: string;
  /** a create: a payment it leaves holding money has `status` once the reconciler ran, retried or not */
  create?: true;
}

const authorized = async (m: Merchant) => (await payments.create(m.apiKey, paymentBody())).body.id as string;
const captured = async (m: Merchant) => {
  const id = await authorized(m);
  await payments.capture(m.apiKey, id);
  return id;
};

const FLOWS: Record<string, Flow> = {
  create: {
    prepare: async () => undefined,
    request: (m, _id, h) => payments.create(m.apiKey, paymentBody({}, '4242424242424242'), h),
    status: 'succeeded',
    create: true,
  },
  // authorized then captured by the create itself: a run stopped between the two is captured once, by its retry or
  // by the reconciler
  'automatic create': {
    prepare: async () => undefined,
    request: (m, _id, h) => payments.create(m.apiKey, paymentBody({ capture_method: 'automatic' }, '4242424242424242'), h),
    status: 'captured',
    create: true,
  },
  capture: { prepare: authorized, request: (m, id, h) => payments.capture(m.apiKey, id!, { amount: 2000 }, h), status: 'captured' },
  void: { prepare: authorized, request: (m, id, h) => payments.void(m.apiKey, id!, h), status: 'voided' },
  refund: { prepare: captured, request: (m, id, h) => payments.refund(m.apiKey, id!, { amount: 1000 }, h), status: 'refunded' },
};

const PROVIDER_FAULTS = ['down', 'accept_then_drop', 'accept_then_timeout'] as const;

beforeAll(() => {
  // A provider that accepts and never answers is given up on quickly.
  providerDeadlines.authorizeMs = 200;
  providerDeadlines.operationMs = 200;
});
afterEach(resetClock);

/** One run: prepare, the request under `fault`, the client's retry (or none), the reconciler; then every invariant. */
async function run(flow: Flow, fault: Fault, { retry = true } = {}): Promise<number> {
  // Prepare
  const merchant = await newMerchant();
  const before = await flow.prepare(merchant);
  const stored = before ? await storedPayment(merchant.merchantId, before) : undefined;
  const headers = { 'Idempotency-Key': `fault-${Math.random()}` };
  // A provider fault hits the payment's provider, or every provider for a create (whichever routing tries first).
  const faultAt = fault.kind === 'provider' && stored?.provider ? { ...fault, providers: [stored.provider] } : fault;

  // Act
  const heldBefore = new Set(sandboxBooks.authorizations.keys());
  const { result: first, commands } = await withFault(faultAt, () => flow.request(merchant, before, headers));
  const retried = retry ? await retryUntilAnswered(() => flow.request(merchant, before, headers)) : undefined;
  await runReconciler();

  // Assess
  const context = `${JSON.stringify(faultAt)}: first answer ${first instanceof Error ? first.message : `${first.status} ${first.rawBody}`}, retry ${retried?.rawBody}`;
  const firstOk = !(first instanceof Error) && first.status === 200;
  const paymentId: string | undefined =
    before ?? retried?.body.id ?? (firstOk ? first.body.id : (await payments.list(merchant.apiKey)).body.data[0]?.id);
  if (retried) {
    expect(retried.status, context).toBe(200);
    if (firstOk) expect(first.body.id, context).toBe(paymentId);
  }
  if (firstOk || retried) expect((await storedPayment(merchant.merchantId, paymentId!))?.status, context).toBe(flow.status);
  if (flow.create && paymentId && heldFor(paymentId).length > 0) {
    expect((await storedPayment(merchant.merchantId, paymentId))?.status, context).toBe(flow.status);
  }
  expect(await openOperations(merchant.merchantId), context).toEqual([]);
  await expectBooksAgree(merchant, paymentId, context);
  // Nothing this run authorized is held for a payment we do not have.
  const strays = [...sandboxBooks.authorizations.values()].filter(
    (a) => !heldBefore.has(a.reference) && a.paymentId !== paymentId && a.state !== 'voided',
  );
  expect(strays, context).toEqual([]);
  return commands;
}

/**
 * The service's records and the provider's books tell the same story: nothing processing, at most one payment per
 * request, an authorization held exactly when the payment says so (never two), the same captured and refunded
 * amounts, refunds within the capture, and a balance of exactly captured − refunded.
 */
async function expectBooksAgree(merchant: Merchant, paymentId: string | undefined, context: string) {
  const listed = (await payments.list(merchant.apiKey)).body;
  expect(listed.total, context).toBe(paymentId ? 1 : 0);
  expect(await moneyProblems(merchant, paymentId ? [paymentId] : []), context).toEqual([]);
  if (!paymentId) return;
  const payment = (await storedPayment(merchant.merchantId, paymentId))!;
  expect(payment.status, context).not.toBe('processing');
  const held = heldFor(paymentId);
  const holds = ['succeeded', 'captured', 'refunded'].includes(payment.status);
  expect(held.length, `${context}: authorizations held`).toBe(holds ? 1 : 0);
  if (held[0]) {
    expect(held[0].reference, context).toBe(payment.provider_reference);
    expect(held[0].captured, context).toBe(payment.amount_captured);
    expect(held[0].refunded, context).toBe(payment.amount_refunded);
    expect(held[0].refunded, context).toBeLessThanOrEqual(held[0].captured);
  }
  expect(await balanceTotal(merchant.apiKey), `${context}: balance`).toBe(payment.amount_captured - payment.amount_refunded);
}

describe.each(Object.entries(FLOWS))('%s under faults', (_name, flow) => {
  it('at every DynamoDB command, before it reaches the table and after the table applied it', { timeout: 360_000 }, async () => {
    for (let step = 1; ; step++) {
      const sentBefore = await run(flow, { kind: 'dynamodb', step, when: 'before' });
      const sentAfter = await run(flow, { kind: 'dynamodb', step, when: 'after' });
      // Once the request sends fewer commands than `step` (the fault no longer fires in either mode), every step was covered.
      if (sentBefore < step && sentAfter < step) break;
    }
  });

  it.each(PROVIDER_FAULTS)('at the provider: %s', async (fault) => {
    await run(flow, { kind: 'provider', providers: PROVIDERS, fault });
  });

  it('with no retry at all: the reconciler alone leaves nothing open, whatever step failed', { timeout: 360_000 }, async () => {
    for (let step = 1; ; step++) {
      const sent = await run(flow, { kind: 'dynamodb', step, when: 'after' }, { retry: false });
      if (sent < step) break;
    }
    for (const fault of PROVIDER_FAULTS) await run(flow, { kind: 'provider', providers: PROVIDERS, fault }, { retry: false });
  });
});

describe('answers lost at the provider are resolved, never guessed', () => {
  it('a decline whose answer was lost is still a decline: 402, kept, and no other provider is asked', async () => {
    // Prepare
    const merchant = await newMerchant();
    const callsBefore = sandboxBooks.calls.length;
    // Act
    const { result } = await withFault({ kind: 'provider', providers: PROVIDERS, fault: 'accept_then_drop' }, () =>
      payments.create(merchant.apiKey, paymentBody({}, '4000000000000002'), { 'Idempotency-Key': `lost-decline-${Math.random()}` }),
    );
    // Assess
    const res = result as HttpResult;
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'card_declined', decline_code: 'generic_decline' });
    expect(sandboxBooks.calls.slice(callsBefore).filter((c) => c.includes(' authorize '))).toHaveLength(1);
    expect((await payments.list(merchant.apiKey)).body.total).toBe(1);
  });

  it('an authorization nobody can confirm is recorded failed (500 naming the payment) and reversed by the reconciler', async () => {
    // Prepare
    const merchant = await newMerchant();
    // Act: the provider accepts, drops the answer and goes down (no look-up, no reversal possible)
    const { result } = await withFault({ kind: 'provider', providers: PROVIDERS, fault: 'accept_then_down' }, () =>
      payments.create(merchant.apiKey, paymentBody(), { 'Idempotency-Key': `unconfirmed-${Math.random()}` }),
    );
    const res = result as HttpResult;
    const paymentId = res.body.error?.payment_id as string;
    const heldWhileDown = heldFor(paymentId).length;
    await runReconciler();
    // Assess
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('provider_outcome_unknown');
    expect(heldWhileDown).toBe(1);
    expect((await storedPayment(merchant.merchantId, paymentId))?.status).toBe('failed');
    expect(heldFor(paymentId)).toEqual([]);
    expect(await openOperations(merchant.merchantId)).toEqual([]);
    expect(await moneyProblems(merchant, [paymentId])).toEqual([]);
  });
});

describe('invoice send under faults', () => {
  const invoices = {
    create: (key: string, customerId: string) =>
      invokeHttp(
        createInvoiceFn,
        apiEvent({
          method: 'POST',
          path: '/api/invoices',
          headers: bearer(key),
          body: { customer_id: customerId, items: [{ name: 'Plan', amount: 1500, quantity: 1 }], currency: 'usd', due_date: '2026-12-31' },
        }),
      ),
    send: (key: string, id: string) =>
      invokeHttp(sendInvoiceFn, apiEvent({ method: 'PUT', path: `/api/invoices/${id}/send`, headers: bearer(key), body: { channel: 'email' } })),
    get: (key: string, id: string) => invokeHttp(getInvoiceFn, apiEvent({ method: 'GET', path: `/api/invoices/${id}`, headers: bearer(key) })),
  };

  /** The e-mail service fails: before it accepted the message, or after (the message went out, the answer was lost). */
  async function withEmailFault<T>(when: 'before' | 'after', act: () => Promise<T>): Promise<T> {
    const real = emailSender.send.bind(emailSender);
    emailSender.send = async (email) => {
      if (when === 'after') await real(email);
      throw new Error(`injected: e-mail service failed ${when} accepting`);
    };
    try {
      return await act();
    } finally {
      emailSender.send = real;
    }
  }

  /**
   * Send under `fault`, the merchant's retry (a PUT: a send again, which may re-send), the reconciler: the invoice is
   * sent, nothing is left open, and every recorded send (`invoice.sent`) had its message delivered (at least once).
   */
  async function runSend(fault: (act: () => Promise<HttpResult>) => Promise<unknown>, label: string) {
    // Prepare
    const merchant = await newMerchant();
    const invoice = (await invoices.create(merchant.apiKey, merchant.customerId)).body;
    const mailsFor = () => listLocalOutbox().filter((m) => m.subject?.includes(invoice.number) && m.text.includes(invoice.id)).length;
    // Act
    await fault(() => invoices.send(merchant.apiKey, invoice.id));
    moveClock(2 * 60_000);
    await invoices.send(merchant.apiKey, invoice.id);
    await runReconciler();
    // Assess
    const context = `${label}`;
    expect((await invoices.get(merchant.apiKey, invoice.id)).body.status, context).toBe('sent');
    expect(await openOperations(merchant.merchantId), context).toEqual([]);
    const sentEvents = (await listDeliveries(testActor(merchant.merchantId), { limit: 100 })).data.filter((e) => e.event === 'invoice.sent');
    expect(sentEvents.length, context).toBeGreaterThanOrEqual(1);
    expect(sentEvents.length, context).toBeLessThanOrEqual(2);
    expect(mailsFor(), context).toBeGreaterThanOrEqual(sentEvents.length);
  }

  it('at every DynamoDB command, and when the e-mail service fails before or after accepting', { timeout: 360_000 }, async () => {
    for (let step = 1; ; step++) {
      let sent = 0;
      for (const when of ['before', 'after'] as const) {
        await runSend(
          async (act) => (sent = Math.max(sent, (await withFault({ kind: 'dynamodb', step, when }, act)).commands)),
          `dynamodb ${when} command ${step}`,
        );
      }
      if (sent < step) break;
    }
    for (const when of ['before', 'after'] as const)
      await runSend((act) => withEmailFault(when, act).catch((e: Error) => e), `e-mail service ${when}`);
  });
});
