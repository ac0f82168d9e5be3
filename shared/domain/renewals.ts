import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { sendJson } from '../queues-client.ts';
import { RenewalMessage, type RenewalMessageBody } from '../schemas/subscriptions.ts';
import type { Change } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as customers from '../store/customers.ts';
import * as invoices from '../store/invoices.ts';
import type { InvoiceStatus } from '../store/invoices.ts';
import * as payments from '../store/payments.ts';
import * as ledger from '../store/ledger.ts';
import * as subscriptions from '../store/subscriptions.ts';
import type { PeriodRecord, SubscriptionRecord } from '../store/subscriptions.ts';
import type { Merchant } from './auth.ts';
import { billingDateAfter, utcDate } from '../model/billing-dates.ts';
import { CardRetryCapReached } from './card-charge-cap.ts';
import { chargeCardOnFile } from './card-on-file.ts';
import { clock, isoNow } from '../model/clock.ts';
import { AppError } from '../model/errors.ts';
import { sendInvoice } from './invoice-delivery.ts';
import { newId } from '../model/ids.ts';
import { type DeclaredOperation, leaseFromNow, runOperation } from './operations.ts';
import { createInvoice, markInvoicePaid, paymentFailedChange } from './invoices.ts';
import { paymentActionRequired, sendPaymentLink } from './payment-links.ts';
import { cappedRecovery, recoveryAfter } from './recovery-policy.ts';
import { capturePayment } from './payment-lifecycle.ts';
import { PERIOD } from '../model/state-machines.ts';
import { scheduleOf, stepSubscription, today } from './subscriptions.ts';
import { count } from '../metrics.ts';
import { modeOf } from './connectors.ts';

/**
 * Renewals (docs/architecture.md "Subscriptions and invoices"): an hourly scanner reads the sparse renewal index and
 * enqueues one message per due subscription and period. The worker claims the period (a conditional write: a second
 * run finds it claimed and does nothing), creates its invoice, charges the card on file or e-mails the invoice, then
 * advances `next_billing`. A decline makes the subscription `past_due`, retried or waiting as the retry policy says
 * (recovery-policy.ts); a period a dead run left `charging` is finished by recoverCharge.
 */

/** The send to the renewals queue: a seam tests replace to see what the scanner enqueues. */
export const renewalsQueue = {
  send: (messages: RenewalMessageBody[]): Promise<void> => sendJson(config.RENEWALS_QUEUE_URL, 'renewals', messages),
};

/** The message for a subscription found in the renewal index, if it is really due on `day`. */
export function renewalMessageOf(s: SubscriptionRecord, day: string): RenewalMessage | undefined {
  if (s.status === 'active' && s.next_billing <= day) return { subscription_id: s.id, period_start: s.next_billing, attempt: 0 };
  if (s.status === 'past_due' && s.retry_attempt && s.retry_at && s.retry_at <= day) {
    return { subscription_id: s.id, period_start: s.next_billing, attempt: s.retry_attempt };
  }
  return undefined;
}

/**
 * Enqueues one message per due subscription and period (deduplication is the worker's: a subscription found again
 * before its renewal ran gets another message, which finds the period claimed or renewed).
 */
export async function scanRenewals(): Promise<{ due: number; enqueued: number }> {
  const day = today();
  let due = 0;
  let enqueued = 0;
  await subscriptions.forEachDueSubscription(day, async (page) => {
    const messages = page.flatMap((s) => renewalMessageOf(s, day) ?? []);
    // A first renewal's message is `{subscription_id, period_start}`; retries add their attempt.
    await renewalsQueue.send(messages.map(({ attempt, ...m }) => (attempt ? { ...m, attempt } : m)));
    due += page.length;
    enqueued += messages.length;
  });
  return { due, enqueued };
}

export const parseRenewalMessage = (body: string): RenewalMessage => v.parse(RenewalMessage, JSON.parse(body));

export type RenewalOutcome = 'renewed' | 'past_due' | 'cancelled' | `skipped:${string}`;

const actorOf = (s: SubscriptionRecord): Merchant => ({ id: s.merchant_id, credential: 'api_key', livemode: s.livemode });

const baseUrl = () => config.PUBLIC_API_URL ?? '';

/** Moves the period along the PERIOD table while this worker's claim holds it; false when the claim was lost. */
const advance = (period: PeriodRecord, operation: keyof typeof PERIOD, changes: Parameters<typeof subscriptions.stepClaimedPeriod>[2] = {}) =>
  subscriptions.stepClaimedPeriod(period, PERIOD[operation], changes, isoNow());

const skip = (reason: string, message: RenewalMessage): RenewalOutcome => {
  logger.info('Renewal skipped', { reason, ...message });
  return `skipped:${reason}`;
};

/** Renews one period of one subscription (one message of the renewals queue), at most once; counts what it did. */
export async function renewPeriod(message: RenewalMessage): Promise<RenewalOutcome> {
  const subscription = await subscriptions.loadSubscription(message.subscription_id);
  if (!subscription) return skip('unknown_subscription', message);
  const outcome = await renewLoaded(subscription, message);
  if (outcome === 'renewed' || outcome === 'past_due' || outcome === 'cancelled') await count('Renewals', { mode: modeOf(subscription), outcome });
  return outcome;
}

async function renewLoaded(subscription: SubscriptionRecord, message: RenewalMessage): Promise<RenewalOutcome> {
  const { subscription_id, period_start: period, attempt } = message;
  const day = today();
  if (period > day) return skip('not_due_yet', message);
  if (subscription.next_billing !== period || (subscription.status !== 'active' && subscription.status !== 'past_due')) {
    return skip('period_not_pending', message);
  }

  // Finish what an earlier run of this period did but could not complete (it stopped between two writes).
  const existing = await subscriptions.getPeriod(subscription_id, period);
  if (existing?.state === 'settled') return completeRenewal(subscription, existing);
  if (existing?.state === 'failed' && existing.attempt === attempt) return recordDecline(subscription, existing);
  if (existing?.state === 'charging' && existing.attempt === attempt) {
    // A charge started without its payment id (never the case since it is chosen first) is not made again.
    if (existing.lease_until < clock.now() && (!existing.payment_id || !existing.invoice_id)) {
      logger.error('A renewal charge was started without a payment id; the period is not charged again', { ...message, period: existing });
      return skip('charging_unknown', message);
    }
    return runOperation(periodRenewal, { subscription, message, period: existing });
  }

  // Set to end with its current period: cancelled on the date it would renew, with no invoice and no charge.
  if (!existing && attempt === 0 && subscription.status === 'active' && subscription.cancel_at_period_end) {
    return cancelAtPeriodEnd(subscription, message);
  }

  const due =
    attempt === 0
      ? subscription.status === 'active'
      : subscription.status === 'past_due' &&
        subscription.retry_attempt === attempt &&
        subscription.retry_at !== null &&
        subscription.retry_at <= day;
  if (!due) return skip('attempt_not_due', message);

  return runOperation(periodRenewal, { subscription, message, period: existing });
}

/** A run of the renewals queue's message on its period (as read, if it exists). */
interface PeriodRun {
  subscription: SubscriptionRecord;
  message: RenewalMessage;
  period?: PeriodRecord;
}

/** How a run of the period ended, for its record: the period as the run left it and what happened. */
type PeriodResult = { skip: string } | { period: PeriodRecord; outcome: PeriodOutcome };
type PeriodOutcome =
  { settle: 'paid_elsewhere' | 'invoice_sent' } | { charged: string } | { declined: string; payment_id?: string } | { capped: string };

/** The period's claim as an operation: its id is the claim, its lease the period's. */
const claimOf = (period: PeriodRecord): Operation => ({ id: period.claim, kind: 'renewal', lease_until: period.lease_until });

/**
 * The renewal of a period, an operation like the others: its claim on the period (the operation, leased) is begun by
 * a conditional write (the first attempt creates the period row; a retry moves a `failed` one back to `open` by the
 * PERIOD table), so a second run finds it claimed and does nothing. The call makes the period's invoice and charges
 * the card on file (or e-mails the invoice); the record settles or fails the period by the PERIOD table and moves the
 * subscription. A claim whose run died is taken over once its lease ended, `open` (nothing charged yet) or `charging`
 * (the charge is found by the period's payment id, or made again under it).
 */
export const periodRenewal: DeclaredOperation<PeriodRun, PeriodResult, RenewalOutcome> = {
  what: 'this period',
  target: ({ message }) => subscriptions.periodTarget(message.subscription_id, message.period_start),
  held: ({ period, message }) =>
    period && period.attempt === message.attempt && (period.state === 'open' || period.state === 'charging') ? claimOf(period) : undefined,
  // the claim on this attempt of the period is any run's of its message to take over
  own: () => true,
  busy: async ({ message }) => skip('claimed', message),
  onRefused: async ({ message }) => skip('claimed', message),
  start: ({ message }) => {
    const { subscription_id, period_start, attempt } = message;
    const op: Operation = { id: randomUUID(), kind: 'renewal', lease_until: leaseFromNow() };
    // The lease runs on the machine's clock; `created_at` is business time (a test clock's day), which dates the invoice.
    const held = { attempt, claim: op.id, lease_until: op.lease_until, updated_at: new Date(clock.now()).toISOString() };
    const target = subscriptions.periodTarget(subscription_id, period_start);
    const begin: Change =
      attempt === 0
        ? { writes: [{ create: target, item: { subscription_id, period_start, state: 'open', ...held, created_at: isoNow() } }] }
        : { writes: [{ update: target, transition: PERIOD.retry, expect: { attempt: attempt - 1 }, set: held }] };
    return { op, begin };
  },
  takeOver: ({ period }, held, now, leaseUntil) => ({
    writes: [
      {
        update: subscriptions.periodTarget(period!.subscription_id, period!.period_start),
        inStates: [period!.state],
        expect: { claim: held.id, attempt: period!.attempt },
        atMost: { lease_until: now - 1 },
        set: { lease_until: leaseUntil, updated_at: new Date(now).toISOString() },
      },
    ],
  }),
  call: async (op, { subscription, message, period }, retried) => {
    if (retried) {
      const taken = { ...period!, lease_until: op.lease_until };
      return taken.state === 'charging' ? recoverCharge(subscription, taken) : renewClaimed(subscription, taken);
    }
    const claimed = await subscriptions.getPeriod(message.subscription_id, message.period_start);
    return claimed?.claim === op.id ? renewClaimed(subscription, claimed) : { skip: 'claimed' };
  },
  record: async (result, _op, { subscription, message }) => {
    if ('skip' in result) return skip(result.skip, message);
    const { period, outcome } = result;
    if ('settle' in outcome) {
      if (!(await advance(period, 'settle', { outcome: outcome.settle }))) return skip('claim_lost', message);
      return completeRenewal(subscription, { ...period, state: 'settled', outcome: outcome.settle });
    }
    if ('charged' in outcome) {
      await advance(period, 'charged', { outcome: 'charged', payment_id: outcome.charged });
      return completeRenewal(subscription, { ...period, state: 'settled', outcome: 'charged', payment_id: outcome.charged });
    }
    if ('capped' in outcome) {
      const capped = { decline_code: CAPPED, capped_until: outcome.capped };
      await advance(period, 'fail', capped);
      return recordDecline(subscription, { ...period, state: 'failed', ...capped });
    }
    await advance(period, 'fail', { decline_code: outcome.declined, ...(outcome.payment_id ? { payment_id: outcome.payment_id } : {}) });
    return recordDecline(subscription, { ...period, state: 'failed', decline_code: outcome.declined });
  },
};

/** The claimed period's invoice, then its charge or send: how it ended, for the record. */
async function renewClaimed(subscription: SubscriptionRecord, claimed: PeriodRecord): Promise<PeriodResult> {
  let period: PeriodRecord = claimed;
  let invoiceStatus: InvoiceStatus | undefined;
  // One invoice per period: a retry (or a run taking over an abandoned claim) reuses the one already made. Its id
  // comes from the period (the origin of the period's first claim), so a run that died after making the invoice and
  // before recording it on the period leaves an invoice the next run finds again, with its number: never a second.
  if (!period.invoice_id) {
    const invoice = await createInvoice(
      actorOf(subscription),
      {
        customer_id: subscription.customer_id,
        items: [{ name: subscription.plan, amount: subscription.amount, quantity: 1 }],
        currency: subscription.currency,
        due_date: period.period_start,
        tax_rate: 0,
        subscription_id: subscription.id,
        period_start: period.period_start,
      },
      baseUrl(),
      { at: Date.parse(period.created_at), seed: `renewal#${subscription.id}#${period.period_start}` },
    );
    if (!(await subscriptions.stepClaimedPeriod(period, undefined, { invoice_id: invoice.id }, isoNow()))) return { skip: 'claim_lost' };
    period = { ...period, invoice_id: invoice.id };
    invoiceStatus = invoice.status;
  } else {
    invoiceStatus = (await invoices.getInvoice(subscription, period.invoice_id))?.status;
  }
  const invoiceId = period.invoice_id!;

  // Since an earlier (declined) attempt the merchant may have collected the invoice another way (mark-paid): the
  // period is paid, so it renews without a charge.
  if (invoiceStatus === 'paid') return { period, outcome: { settle: 'paid_elsewhere' } };

  const customer = await customers.getCustomer(subscription, subscription.customer_id);
  // a card to charge: the subscription's saved card, else the customer's default one, else its card on file
  if (!subscription.payment_method && !customer?.default_payment_method && !customer?.card_on_file) {
    // Sent already by a run that died before recording it (or by the reconciler, finishing that run's send): not again.
    if (invoiceStatus !== 'sent') await sendInvoice(actorOf(subscription), invoiceId, 'email', baseUrl());
    return { period, outcome: { settle: 'invoice_sent' } };
  }

  // The payment id is chosen and kept on the period before the provider is asked: a run that dies mid-charge
  // leaves it behind for the next run to find the outcome by (recoverCharge).
  const charging = { state: PERIOD.charge.to, payment_id: newId('payment') };
  if (!(await advance(period, 'charge', { payment_id: charging.payment_id }))) return { skip: 'claim_lost' };
  return chargePeriod(subscription, { ...period, ...charging });
}

/** Charges the period's invoice to the card on file under the period's payment id: how it ended, for the record. */
async function chargePeriod(subscription: SubscriptionRecord, period: PeriodRecord): Promise<PeriodResult> {
  const message = { subscription_id: subscription.id, period_start: period.period_start, attempt: period.attempt };
  const invoiceId = period.invoice_id!;
  try {
    const payment = await chargeCardOnFile(actorOf(subscription), {
      customerId: subscription.customer_id,
      paymentMethodId: subscription.payment_method,
      amount: subscription.amount,
      currency: subscription.currency,
      description: `${subscription.plan} (${period.period_start})`,
      metadata: { subscription_id: subscription.id, period_start: period.period_start, invoice_id: invoiceId },
      paymentId: period.payment_id,
      renewal: { invoiceId, run: period.attempt, why: whyRuns(subscription, period) },
    });
    return { period, outcome: { charged: payment.id } };
  } catch (error) {
    if (error instanceof CardRetryCapReached) return { period, outcome: { capped: error.until } };
    if (error instanceof AppError && error.code === 'card_declined') {
      return { period, outcome: { declined: error.details.decline_code ?? 'generic_decline', payment_id: error.details.payment_id } };
    }
    logger.error('A renewal charge failed with an unknown outcome; the period stays charging until its lease runs out', {
      ...message,
      error: (error as Error).message,
    });
    throw error;
  }
}

/** A run's mark on its period when the card's retry cap let it send nothing (each failed run sets its own code). */
const CAPPED = 'retry_cap_reached';

/** Why a run of the period charges, in words: the renewal, or a retry and what scheduled it. */
const whyRuns = (subscription: SubscriptionRecord, period: PeriodRecord): string =>
  period.attempt === 0
    ? `renewal of the period from ${period.period_start}`
    : `retry ${period.attempt} of the period from ${period.period_start} (${subscription.retry_reason ?? 'scheduled'})`;

/**
 * A run died while charging: the period is still `charging`, its claim taken over. The payment recorded under the
 * period's payment id tells how the charge ended (captured, authorized but not captured yet, or declined); with
 * none recorded the charge is made again under the same id, which a live provider takes as the idempotency key of
 * the first attempt, so the customer pays at most once.
 */
async function recoverCharge(subscription: SubscriptionRecord, period: PeriodRecord): Promise<PeriodResult> {
  const payment = await payments.getPayment(subscription, period.payment_id!);
  if (!payment) return chargePeriod(subscription, period);
  if (payment.status === 'failed') return { period, outcome: { declined: payment.decline_code ?? 'generic_decline' } };
  if (payment.status === 'succeeded') await capturePayment(actorOf(subscription), payment.id, {});
  return { period, outcome: { charged: payment.id } };
}

/** Paid or invoiced: the invoice is marked paid (once), the subscription moves to the next period, `subscription.renewed`. */
async function completeRenewal(subscription: SubscriptionRecord, period: PeriodRecord): Promise<RenewalOutcome> {
  const message = { subscription_id: subscription.id, period_start: period.period_start, attempt: period.attempt };
  if (period.outcome === 'charged' && period.invoice_id) {
    try {
      await markInvoicePaid(actorOf(subscription), period.invoice_id, period.payment_id);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'invalid_state')) throw error;
      const invoice = await invoices.getInvoice(subscription, period.invoice_id);
      // Being sent at this moment: fail, so that the queue runs this completion again shortly.
      if (invoice?.status !== 'paid') throw error;
      // Paid already: by an earlier run of this completion, or by the merchant while this charge ran.
      if (invoice.payment_id !== period.payment_id) {
        logger.error('The invoice was marked paid while its renewal charged the card: the customer paid twice; refund one', {
          ...message,
          invoice_id: period.invoice_id,
          payment_id: period.payment_id,
        });
      }
    }
  }
  const stepped = await stepSubscription(
    subscription,
    'renew',
    {
      current_period_start: period.period_start,
      next_billing: billingDateAfter(scheduleOf(subscription), period.period_start),
      retry_attempt: null,
      retry_at: null,
      retry_reason: null,
      awaiting_card: null,
      latest_invoice: period.invoice_id ?? subscription.latest_invoice,
    },
    { next_billing: period.period_start },
    { counters: await recoveredCounters(subscription, period) },
  );
  return stepped ? 'renewed' : skip('moved_meanwhile', message);
}

/**
 * The renewal of a subscription set to cancel at period end: `cancel` (subscription.cancelled) instead, on the
 * condition that the merchant has not unset it meanwhile and the period is still the one due. A refused transition is
 * skipped: the next scan finds the subscription again if it is still due (renewing it, if the flag was unset).
 */
async function cancelAtPeriodEnd(subscription: SubscriptionRecord, message: RenewalMessage): Promise<RenewalOutcome> {
  const stepped = await stepSubscription(
    subscription,
    'cancel',
    { cancelled_at: isoNow(), retry_attempt: null, retry_at: null, retry_reason: null, awaiting_card: null },
    { next_billing: message.period_start, cancel_at_period_end: true },
  );
  return stepped ? 'cancelled' : skip('moved_meanwhile', message);
}

/**
 * A declined run: past_due, with what the retry policy says comes next (recovery-policy.ts) on the subscription and
 * its invoice, in one commit with `subscription.past_due` and `invoice.payment_failed`.
 */
async function recordDecline(subscription: SubscriptionRecord, period: PeriodRecord): Promise<RenewalOutcome> {
  const message = { subscription_id: subscription.id, period_start: period.period_start, attempt: period.attempt };
  const firstTry = utcDate(Date.parse(period.created_at));
  const recovery =
    period.decline_code === CAPPED && period.capped_until
      ? cappedRecovery(period.capped_until, period.attempt)
      : recoveryAfter(period.decline_code ?? 'generic_decline', firstTry, today(), period.attempt);
  const invoice = period.invoice_id ? await invoices.getInvoice(subscription, period.invoice_id) : undefined;
  const failure = { next_retry_at: recovery.retry_at, retry_reason: recovery.reason };
  // An expired card waits for its update (card-updates.ts), a challenge for the customer (payment-links.ts): either
  // makes this run's next one due (retryNow).
  const waits = recovery.treatment === 'wait_for_card' || recovery.treatment === 'wait_for_shopper';
  const awaitingCard = recovery.treatment === 'wait_for_card' ? await chargedCardOf(subscription, period) : null;
  const failed = invoice ? await paymentFailedChange(invoice, failure, baseUrl()) : {};
  const actionRequired =
    recovery.treatment === 'wait_for_shopper' && invoice ? [await paymentActionRequired({ ...invoice, ...failure }, config.PUBLIC_API_URL)] : [];
  const stepped = await stepSubscription(
    subscription,
    period.attempt === 0 ? 'decline' : 'declineRetry',
    {
      retry_attempt: recovery.retry_at === null && !waits ? null : period.attempt + 1,
      retry_at: recovery.retry_at,
      retry_reason: recovery.reason,
      awaiting_card: awaitingCard,
      latest_invoice: period.invoice_id ?? subscription.latest_invoice,
    },
    period.attempt === 0 ? { next_billing: period.period_start } : { next_billing: period.period_start, retry_attempt: period.attempt },
    {
      ...failed,
      events: [...(failed.events ?? []), ...actionRequired],
      // a period's first decline is what recovery analytics count from (a capped run sent nothing: not a decline)
      counters:
        period.attempt === 0 && period.decline_code !== CAPPED
          ? ledger.recoveryCounters(
              subscription,
              today(),
              subscription.currency,
              period.decline_code ?? 'generic_decline',
              ['failed'],
              subscription.amount,
            )
          : [],
    },
  );
  if (!stepped) return skip('moved_meanwhile', message);
  if (actionRequired.length > 0) await sendPaymentLink(invoice!, baseUrl());
  return 'past_due';
}

/** The saved card (pm_) the period's declined charge was made with, if it was one. */
async function chargedCardOf(subscription: SubscriptionRecord, period: PeriodRecord): Promise<string | null> {
  const payment = period.payment_id
    ? await payments.getPayment({ merchant_id: subscription.merchant_id, livemode: subscription.livemode }, period.payment_id)
    : undefined;
  return payment?.payment_method_id ?? null;
}

/**
 * A period paid after a decline is recovered, counted under its first decline's code (the invoice's first declined
 * attempt): past_due until now (its failure was counted then), or declined and paid at another account in one run
 * (counted failed and recovered now).
 */
async function recoveredCounters(subscription: SubscriptionRecord, period: PeriodRecord) {
  const invoice = period.invoice_id ? await invoices.getInvoice(subscription, period.invoice_id) : undefined;
  const declined = invoice?.payment_attempts.find((a) => a.status === 'declined')?.decline_code;
  const first = declined ?? (subscription.status === 'past_due' ? (period.decline_code ?? 'generic_decline') : undefined);
  if (!first) return [];
  // one cell, one write: a transaction may not touch an item twice
  const outcomes = subscription.status === 'past_due' ? (['recovered'] as const) : (['failed', 'recovered'] as const);
  return ledger.recoveryCounters(subscription, today(), subscription.currency, first, outcomes, subscription.amount);
}
