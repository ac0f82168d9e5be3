import { config } from '../config.ts';
import { logger } from '../logger.ts';
import type { RenewalMessage } from '../schemas/subscriptions.ts';
import * as invoices from '../store/invoices.ts';
import * as payments from '../store/payments.ts';
import * as ledger from '../store/ledger.ts';
import type { PeriodRecord, SubscriptionRecord } from '../store/subscriptions.ts';
import type { Merchant } from './auth.ts';
import { billingDateAfter, utcDate } from '../model/billing-dates.ts';
import { isoNow } from '../model/clock.ts';
import { AppError } from '../model/errors.ts';
import { markInvoicePaid, paymentFailedChange } from './invoices.ts';
import { paymentActionRequired, sendPaymentLink } from './payment-links.ts';
import { cappedRecovery, recoveryAfter } from './recovery-policy.ts';
import { scheduleOf, stepSubscription, today } from './subscriptions.ts';

/**
 * How a period's renewal ends (renewals.ts): renewed (the invoice marked paid, the subscription moved to its next
 * period), declined (past_due, with what the retry policy says comes next), or cancelled at the period's end; each
 * in one conditional step of the subscription, skipped when it moved meanwhile.
 */

export type RenewalOutcome = 'renewed' | 'past_due' | 'cancelled' | `skipped:${string}`;

export const actorOf = (s: SubscriptionRecord): Merchant => ({ id: s.merchant_id, credential: 'api_key', livemode: s.livemode });

export const baseUrl = () => config.PUBLIC_API_URL ?? '';

export const skip = (reason: string, message: RenewalMessage): RenewalOutcome => {
  logger.info('Renewal skipped', { reason, ...message });
  return `skipped:${reason}`;
};

/** A run's mark on its period when the card's retry cap let it send nothing (each failed run sets its own code). */
export const CAPPED = 'retry_cap_reached';

/** Paid or invoiced: the invoice is marked paid (once), the subscription moves to the next period, `subscription.renewed`. */
export async function completeRenewal(subscription: SubscriptionRecord, period: PeriodRecord): Promise<RenewalOutcome> {
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
export async function cancelAtPeriodEnd(subscription: SubscriptionRecord, message: RenewalMessage): Promise<RenewalOutcome> {
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
export async function recordDecline(subscription: SubscriptionRecord, period: PeriodRecord): Promise<RenewalOutcome> {
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
