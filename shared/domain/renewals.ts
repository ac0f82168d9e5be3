import * as v from 'valibot';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { sendJson } from '../queues-client.ts';
import { RenewalMessage, type RenewalMessageBody } from '../schemas/subscriptions.ts';
import * as subscriptions from '../store/subscriptions.ts';
import type { SubscriptionRecord } from '../store/subscriptions.ts';
import { clock } from '../model/clock.ts';
import { runOperation } from './operations.ts';
import { today } from './subscriptions.ts';
import { periodRenewal } from './period-renewal.ts';
import { cancelAtPeriodEnd, completeRenewal, recordDecline, type RenewalOutcome, skip } from './renewal-outcomes.ts';
import { count } from '../metrics.ts';
import { modeOf } from './route-targets.ts';

/**
 * Renewals (docs/architecture.md "Subscriptions and invoices"): an hourly scanner reads the sparse renewal index and
 * enqueues one message per due subscription and period. The worker claims the period (a conditional write: a second
 * run finds it claimed and does nothing), creates its invoice, charges the card on file or e-mails the invoice, then
 * advances `next_billing`. A decline makes the subscription `past_due`, retried or waiting as the retry policy says
 * (recovery-policy.ts); a period a dead run left `charging` is finished by recoverCharge. The claim, the invoice and
 * the charge are the operation `periodRenewal` (period-renewal.ts); how a period ends is renewal-outcomes.ts.
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
