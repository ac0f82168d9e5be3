import { randomUUID } from 'node:crypto';
import { logger } from '../logger.ts';
import type { RenewalMessage } from '../schemas/subscriptions.ts';
import type { Change } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as customers from '../store/customers.ts';
import * as invoices from '../store/invoices.ts';
import type { InvoiceStatus } from '../store/invoices.ts';
import * as payments from '../store/payments.ts';
import * as subscriptions from '../store/subscriptions.ts';
import type { PeriodRecord, SubscriptionRecord } from '../store/subscriptions.ts';
import { CardRetryCapReached } from './card-charge-cap.ts';
import { chargeCardOnFile } from './card-on-file.ts';
import { clock, isoNow } from '../model/clock.ts';
import { AppError } from '../model/errors.ts';
import { sendInvoice } from './invoice-delivery.ts';
import { newId } from '../model/ids.ts';
import { type DeclaredOperation, leaseFromNow } from './operations.ts';
import { createInvoice } from './invoices.ts';
import { capturePayment } from './payment-lifecycle.ts';
import { PERIOD } from '../model/state-machines.ts';
import { actorOf, baseUrl, CAPPED, completeRenewal, recordDecline, type RenewalOutcome, skip } from './renewal-outcomes.ts';

/** Moves the period along the PERIOD table while this worker's claim holds it; false when the claim was lost. */
const advance = (period: PeriodRecord, operation: keyof typeof PERIOD, changes: Parameters<typeof subscriptions.stepClaimedPeriod>[2] = {}) =>
  subscriptions.stepClaimedPeriod(period, PERIOD[operation], changes, isoNow());

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
