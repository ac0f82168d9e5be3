import type * as v from 'valibot';
import type { CreateSubscriptionBody, ListSubscriptionsQuery, UpdateSubscriptionBody } from '../schemas/subscriptions.ts';
import { type Change, commit } from '../store/commit.ts';
import * as customers from '../store/customers.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import * as subscriptions from '../store/subscriptions.ts';
import type { SubscriptionRecord } from '../store/subscriptions.ts';
import type { Owner } from '../model/targets.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { firstBillingDate, resumedNextBilling, type Schedule, utcDate } from '../model/billing-dates.ts';
import { businessNow, isoNow } from '../model/clock.ts';
import { InvalidState, NotFound, ResourceMissing } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { freshOrigin, idFor, isId, type Origin } from '../model/ids.ts';
import { allows, SUBSCRIPTION, SUBSCRIPTION_CHANGEABLE, transition } from '../model/state-machines.ts';
import { clockTimeOf } from './clock-binding.ts';

/**
 * Subscriptions and their state machine (the SUBSCRIPTION table in state-machines.ts, docs/api.md "Subscriptions"):
 *   active → paused (pause) → active (resume); active | paused | past_due → cancelled (cancel, permanent);
 *   active → past_due (a declined renewal) → active (a retry that succeeds).
 * Every transition is one commit with its event in the same transaction; any other answers invalid_state with the
 * reason, e.g. "a cancelled subscription cannot be paused".
 */
export const subscriptionView = (s: SubscriptionRecord) => ({
  id: s.id,
  object: 'subscription' as const,
  status: s.status,
  customer_id: s.customer_id,
  payment_method: s.payment_method,
  plan: s.plan,
  amount: s.amount,
  currency: s.currency,
  interval: s.interval,
  interval_count: s.interval_count,
  current_period_start: s.current_period_start,
  next_billing: s.next_billing,
  retry_at: s.retry_at,
  retry_reason: s.retry_reason,
  latest_invoice: s.latest_invoice,
  metadata: s.metadata,
  cancel_at_period_end: s.cancel_at_period_end,
  livemode: s.livemode,
  created_at: s.created_at,
  cancelled_at: s.cancelled_at,
});

export const scheduleOf = (s: Pick<SubscriptionRecord, 'billing_anchor' | 'interval' | 'interval_count'>): Schedule => ({
  anchor: s.billing_anchor,
  interval: s.interval,
  interval_count: s.interval_count,
});

export const today = (): string => utcDate(businessNow());

type CreateInput = v.InferOutput<typeof CreateSubscriptionBody>;

/**
 * Creates an active subscription. Its id and creation time come from the request's `origin`: a request run again
 * after a crash (same Idempotency-Key) finds the subscription its first run stored and answers it.
 */
export async function createSubscription(merchant: Merchant, input: CreateInput, origin: Origin = freshOrigin()) {
  const customer = isId('customer', input.customer_id) ? await customers.getCustomer(ownerOf(merchant), input.customer_id) : undefined;
  if (!customer) throw new ResourceMissing('customer_id');
  if (input.payment_method) await requireCustomersCard(merchant, input.payment_method, input.customer_id);
  // a customer on a test clock subscribes at the clock's time, and renews as the clock advances
  const at = (await clockTimeOf(customer.test_clock)) ?? origin.at;
  const start = input.start_date ?? utcDate(at);
  const now = new Date(at).toISOString();
  const subscription: SubscriptionRecord = {
    id: idFor('subscription', origin),
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    test_clock: customer.test_clock ?? null,
    customer_id: input.customer_id,
    payment_method: input.payment_method ?? null,
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
    retry_reason: null,
    awaiting_card: null,
    latest_invoice: null,
    metadata: input.metadata ?? {},
    cancel_at_period_end: false,
    created_at: now,
    updated_at: now,
    cancelled_at: null,
  };
  const event = newEvent(ownerOf(merchant), 'subscription.created', subscriptionView(subscription));
  if ((await commit({ writes: [subscriptions.subscriptionCreate(subscription)], events: [event] })) === 'refused') {
    // Stored by an earlier run of the same request: answered as it is, never created twice.
    return subscriptionView(await load(merchant, subscription.id));
  }
  return subscriptionView(subscription);
}

type ListInput = v.InferOutput<typeof ListSubscriptionsQuery>;

export async function listSubscriptions(merchant: Merchant, query: ListInput) {
  const { limit, starting_after, ending_before, status, customer_id } = query;
  const result = await subscriptions.listSubscriptions(ownerOf(merchant), { status, customer_id }, { limit, starting_after, ending_before });
  return { object: 'list' as const, data: result.data.map(subscriptionView), has_more: result.has_more };
}

export const getSubscription = async (merchant: Merchant, subscriptionId: string) => subscriptionView(await load(merchant, subscriptionId));

type UpdateInput = v.InferOutput<typeof UpdateSubscriptionBody>;

/**
 * Changes the terms (plan, amount, metadata, cancel_at_period_end) of a subscription that is not cancelled. They
 * apply from the next period: the renewal on `next_billing` bills the new plan and amount, or cancels the
 * subscription when `cancel_at_period_end` is set (renewals.ts). No state changes and no event is emitted (the
 * event list of docs/api.md "Webhooks" has no `subscription.updated`).
 */
export async function updateSubscription(merchant: Merchant, subscriptionId: string, input: UpdateInput) {
  const subscription = await load(merchant, subscriptionId);
  const changeable = (s: SubscriptionRecord) => {
    if (!(SUBSCRIPTION_CHANGEABLE as readonly string[]).includes(s.status)) {
      throw new InvalidState(undefined, `a ${s.status} subscription cannot be updated`);
    }
  };
  changeable(subscription);
  if (input.payment_method) await requireCustomersCard(merchant, input.payment_method, subscription.customer_id);
  const changes = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  const write = subscriptions.subscriptionChange(subscription, SUBSCRIPTION_CHANGEABLE, { ...changes, updated_at: isoNow() });
  if ((await commit({ writes: [write] })) === 'refused') {
    changeable(await load(merchant, subscriptionId));
    throw new InvalidState(undefined, 'the subscription changed meanwhile; read it again');
  }
  // read again: a renewal may have moved the subscription meanwhile (it changes other fields than these)
  return subscriptionView(await load(merchant, subscriptionId));
}

/** A subscription charges a card saved for its customer (a card of nobody's, or of another customer: 400 naming it). */
async function requireCustomersCard(merchant: Merchant, paymentMethodId: string, customerId: string): Promise<void> {
  const pm = await paymentMethods.getPaymentMethod(ownerOf(merchant), paymentMethodId);
  if (pm?.customer_id !== customerId) {
    throw new ResourceMissing('payment_method', `no payment method ${paymentMethodId} attached to customer ${customerId}`);
  }
}

async function load(merchant: Merchant, subscriptionId: string): Promise<SubscriptionRecord> {
  const subscription = await subscriptions.getSubscription(ownerOf(merchant), subscriptionId);
  if (!subscription) throw new NotFound();
  return subscription;
}

export type SubscriptionOperation = keyof typeof SUBSCRIPTION;

/**
 * Applies `operation` of the SUBSCRIPTION table with `changes` (and its event) in one commit, on the condition that
 * the fields of `expect` still hold, with the writes and events of `also` (the invoice a renewal failed). Undefined
 * when the subscription's state does not allow the transition, or a racing one won.
 */
export async function stepSubscription(
  subscription: SubscriptionRecord,
  operation: SubscriptionOperation,
  changes: Partial<SubscriptionRecord>,
  expect?: Partial<Pick<SubscriptionRecord, 'next_billing' | 'retry_attempt' | 'cancel_at_period_end' | 'awaiting_card'>>,
  also: Partial<Pick<Change, 'writes' | 'events' | 'counters'>> = {},
): Promise<SubscriptionRecord | undefined> {
  const step = SUBSCRIPTION[operation];
  if (!allows(SUBSCRIPTION, operation, subscription.status)) return undefined;
  const set = { ...changes, updated_at: isoNow() };
  const updated: SubscriptionRecord = { ...subscription, ...set, status: step.to };
  const event = 'event' in step ? [newEvent(subscription, step.event, subscriptionView(updated))] : [];
  const writes = [subscriptions.subscriptionUpdate(subscription, step, set, expect), ...(also.writes ?? [])];
  if ((await commit({ writes, events: [...event, ...(also.events ?? [])], counters: also.counters })) === 'refused') return undefined;
  return updated;
}

/** A merchant's transition: invalid_state with the reason when the state does not allow it (also after a lost race). */
async function merchantStep(
  merchant: Merchant,
  subscriptionId: string,
  operation: SubscriptionOperation,
  plan: (s: SubscriptionRecord) => { changes: Partial<SubscriptionRecord>; expect?: Partial<Pick<SubscriptionRecord, 'next_billing'>> },
) {
  const subscription = await load(merchant, subscriptionId);
  transition('subscription', SUBSCRIPTION, operation, subscription.status);
  const { changes, expect } = plan(subscription);
  const stepped = await stepSubscription(subscription, operation, changes, expect);
  if (stepped) return subscriptionView(stepped);
  transition('subscription', SUBSCRIPTION, operation, (await load(merchant, subscriptionId)).status);
  throw new InvalidState(undefined, 'the subscription changed meanwhile; read it again');
}

/** active → paused: out of the renewal index, nothing renews while paused. */
export const pauseSubscription = (merchant: Merchant, subscriptionId: string) =>
  merchantStep(merchant, subscriptionId, 'pause', () => ({ changes: {} }));

/**
 * paused → active: `next_billing` moves to the next future date of the anchor schedule (after today, and not
 * before the renewal it was waiting for); periods missed while paused are skipped, not billed.
 */
export const resumeSubscription = (merchant: Merchant, subscriptionId: string) =>
  merchantStep(merchant, subscriptionId, 'resume', (s) => ({
    expect: { next_billing: s.next_billing },
    changes: { next_billing: resumedNextBilling(scheduleOf(s), s.next_billing, today()) },
  }));

/** active | paused | past_due → cancelled, for good: out of the renewal index, no retry runs any more. */
export const cancelSubscription = (merchant: Merchant, subscriptionId: string) =>
  merchantStep(merchant, subscriptionId, 'cancel', () => ({
    changes: { cancelled_at: isoNow(), retry_attempt: null, retry_at: null, retry_reason: null, awaiting_card: null },
  }));

/**
 * A past_due period that waited (its card's update, its customer paying the invoice online) is due again today on the
 * subscription's own clock: the next renewal run charges it, or finds its invoice paid and renews. Nothing changes
 * when the subscription has moved on from that period meanwhile.
 */
export async function retryNow(owner: Owner, subscriptionId: string, periodStart: string, why: string): Promise<void> {
  const waiting = await subscriptions.getSubscription(owner, subscriptionId);
  if (waiting?.status !== 'past_due' || waiting.next_billing !== periodStart || !waiting.retry_attempt) return;
  const day = utcDate((await clockTimeOf(waiting.test_clock)) ?? businessNow());
  const changes = { retry_at: day, awaiting_card: null, retry_reason: `${why}: charged again on ${day}` };
  await stepSubscription(waiting, 'retryNow', changes, { next_billing: periodStart, retry_attempt: waiting.retry_attempt });
}

/** A card updated (card-updates.ts): each subscription waiting on it (past_due on `expired_card`) is due again. */
export async function retryWithUpdatedCard(paymentMethodId: string): Promise<void> {
  for (const waiting of await subscriptions.awaitingCard(paymentMethodId)) {
    await retryNow(waiting, waiting.id, waiting.next_billing, 'the card was updated');
  }
}
