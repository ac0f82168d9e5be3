import type * as v from 'valibot';
import { publishEvents } from '../events/queue.ts';
import type { CreateSubscriptionBody, ListSubscriptionsQuery } from '../schemas/subscriptions.ts';
import { getCustomer } from '../store/customers.ts';
import {
  getSubscription as getRecord,
  listSubscriptions as listRecords,
  putSubscription,
  type SubscriptionRecord,
  type SubscriptionStatus,
  type Transition,
  transitionSubscription,
} from '../store/subscriptions.ts';
import type { Merchant } from './auth.ts';
import { firstBillingDate, resumedNextBilling, type Schedule, utcDate } from './billing-dates.ts';
import { clock, isoNow } from './clock.ts';
import { InvalidState, NotFound, ResourceMissing } from './errors.ts';
import { type DomainEvent, type EventType, newEvent } from './events.ts';
import { isId, newId } from './ids.ts';

/**
 * Subscriptions and their state machine (DECISIONS.md "Subscriptions"):
 *   active → paused (pause) → active (resume); active | paused | past_due → cancelled (cancel, permanent);
 *   active → past_due (a declined renewal) → active (a retry that succeeds).
 * Every move is a conditional write with its event in the same transaction; any other move answers invalid_state.
 */
export const subscriptionView = (s: SubscriptionRecord) => ({
  id: s.id,
  object: 'subscription' as const,
  status: s.status,
  customer_id: s.customer_id,
  plan: s.plan,
  amount: s.amount,
  currency: s.currency,
  interval: s.interval,
  interval_count: s.interval_count,
  current_period_start: s.current_period_start,
  next_billing: s.next_billing,
  retry_at: s.retry_at,
  latest_invoice: s.latest_invoice,
  metadata: s.metadata,
  livemode: s.livemode,
  created_at: s.created_at,
  cancelled_at: s.cancelled_at,
});

export const scheduleOf = (s: Pick<SubscriptionRecord, 'billing_anchor' | 'interval' | 'interval_count'>): Schedule => ({
  anchor: s.billing_anchor,
  interval: s.interval,
  interval_count: s.interval_count,
});

export const today = (): string => utcDate(clock.now());

type CreateInput = v.InferOutput<typeof CreateSubscriptionBody>;

export async function createSubscription(merchant: Merchant, input: CreateInput) {
  if (!isId('customer', input.customer_id) || !(await getCustomer(merchant.id, input.customer_id))) throw new ResourceMissing('customer_id');
  const start = input.start_date ?? today();
  const now = isoNow();
  const subscription: SubscriptionRecord = {
    id: newId('subscription'),
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    customer_id: input.customer_id,
    plan: input.plan,
    amount: input.amount,
    currency: input.currency,
    interval: input.interval,
    interval_count: input.interval_count,
    billing_anchor: start,
    status: 'active',
    current_period_start: start,
    next_billing: firstBillingDate({ anchor: start, interval: input.interval, interval_count: input.interval_count }),
    retry_attempt: null,
    retry_at: null,
    latest_invoice: null,
    metadata: input.metadata ?? {},
    created_at: now,
    updated_at: now,
    cancelled_at: null,
  };
  const event = newEvent(merchant.id, 'subscription.created', subscriptionView(subscription));
  await putSubscription(subscription, event);
  await publishEvents([event]);
  return subscriptionView(subscription);
}

type ListInput = v.InferOutput<typeof ListSubscriptionsQuery>;

export async function listSubscriptions(merchant: Merchant, query: ListInput) {
  const { limit, starting_after, ending_before, status, customer_id } = query;
  const result = await listRecords(merchant.id, { status, customer_id }, { limit, starting_after, ending_before });
  return { object: 'list' as const, data: result.data.map(subscriptionView), has_more: result.has_more };
}

async function load(merchant: Merchant, subscriptionId: string): Promise<SubscriptionRecord> {
  const subscription = await getRecord(merchant.id, subscriptionId);
  if (!subscription) throw new NotFound();
  return subscription;
}

/** Applies a move and its event in one transaction, then hands the event on; a lost race answers invalid_state. */
export async function applyMove(subscription: SubscriptionRecord, transition: Transition, eventType: EventType) {
  let event: DomainEvent | undefined;
  const moved = await transitionSubscription(subscription, { ...transition, changes: { ...transition.changes, updated_at: isoNow() } }, (updated) => {
    event = newEvent(subscription.merchant_id, eventType, subscriptionView(updated));
    return event;
  });
  if (!moved) return undefined;
  await publishEvents([event!]);
  return moved;
}

async function move(merchant: Merchant, subscriptionId: string, from: readonly SubscriptionStatus[], eventType: EventType, plan: (s: SubscriptionRecord) => Transition) {
  const subscription = await load(merchant, subscriptionId);
  if (!from.includes(subscription.status)) throw new InvalidState();
  const moved = await applyMove(subscription, plan(subscription), eventType);
  if (!moved) throw new InvalidState();
  return subscriptionView(moved);
}

/** active → paused: out of the renewal index, nothing renews while paused. */
export const pauseSubscription = (merchant: Merchant, subscriptionId: string) =>
  move(merchant, subscriptionId, ['active'], 'subscription.paused', () => ({ from: ['active'], changes: { status: 'paused' } }));

/**
 * paused → active: `next_billing` moves to the next future date of the anchor schedule (after today, and not
 * before the renewal it was waiting for); periods missed while paused are skipped, not billed.
 */
export const resumeSubscription = (merchant: Merchant, subscriptionId: string) =>
  move(merchant, subscriptionId, ['paused'], 'subscription.resumed', (s) => ({
    from: ['paused'],
    expect: { next_billing: s.next_billing },
    changes: { status: 'active', next_billing: resumedNextBilling(scheduleOf(s), s.next_billing, today()) },
  }));

/** active | paused | past_due → cancelled, for good: out of the renewal index, no retry runs any more. */
export const cancelSubscription = (merchant: Merchant, subscriptionId: string) =>
  move(merchant, subscriptionId, ['active', 'paused', 'past_due'], 'subscription.cancelled', () => ({
    from: ['active', 'paused', 'past_due'],
    changes: { status: 'cancelled', cancelled_at: isoNow(), retry_attempt: null, retry_at: null },
  }));
