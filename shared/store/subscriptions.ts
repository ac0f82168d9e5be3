import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { INTERVALS, type Interval } from '../model/billing-dates.ts';
import type { PeriodState, SubscriptionState, Transition } from '../model/state-machines.ts';
import { equalityFilter } from './expressions.ts';
import { db, TABLE } from './client.ts';
import { commit, type Create, type Update } from './commit.ts';
import type { Target } from '../model/targets.ts';
import { Int, nullable, picklistOf, recordReader, StringMap, Text } from './item-schemas.ts';
import { ownedBy, RENEWAL_SHARDS, subscriptionKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { listPage, merchantList, type Page, type PageQuery, queryAll } from './pagination.ts';

export type SubscriptionStatus = SubscriptionState;

export interface SubscriptionRecord {
  id: string;
  merchant_id: string;
  /** the mode of the credential that created it: renewals charge through the same (sandbox or live) providers */
  livemode: boolean;
  /** the test clock of its customer: it renews on the clock's time, when the clock advances */
  test_clock?: string | null;
  customer_id: string;
  /** the saved card renewals charge (null: the customer's default payment method, else its card on file) */
  payment_method: string | null;
  plan: string;
  amount: number;
  currency: string;
  interval: Interval;
  interval_count: number;
  /** the start date: every billing date is computed from it (month ends clamp, then come back) */
  billing_anchor: string;
  status: SubscriptionStatus;
  current_period_start: string;
  /** the start of the next period to renew; while past_due, the period whose charge failed */
  next_billing: string;
  /** past_due: the next run's number and date; null when none is scheduled */
  retry_attempt: number | null;
  retry_at: string | null;
  /** past_due: why the renewal failed and what happens next (recovery-policy.ts) */
  retry_reason: string | null;
  /** past_due on `expired_card`: the payment method whose update makes the next run charge it again */
  awaiting_card: string | null;
  /** the invoice of the latest renewed (or failing) period */
  latest_invoice: string | null;
  metadata: Record<string, string>;
  /** cancelled on its next billing date instead of renewing (set and unset by the merchant's PUT) */
  cancel_at_period_end: boolean;
  created_at: string;
  updated_at: string;
  cancelled_at: string | null;
}

/** The subscription's renewal-index shard: fixed per subscription, spreading due dates over RENEWAL_SHARDS keys. */
export function renewalShard(subscriptionId: string): number {
  let hash = 0;
  for (const char of subscriptionId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % RENEWAL_SHARDS;
}

const dueKeys = (s: Pick<SubscriptionRecord, 'id' | 'test_clock'>, dueDate: string) =>
  s.test_clock ? subscriptionKeys.dueOnClock(s.test_clock, dueDate, s.id) : subscriptionKeys.due(renewalShard(s.id), dueDate, s.id);

/** Its gsi2 keys (sparse): due for renewal, or (not due) waiting for its card's update; none otherwise. */
const indexKeysOf = (s: Pick<SubscriptionRecord, 'id' | 'test_clock' | 'status' | 'next_billing' | 'retry_at' | 'awaiting_card'>) => {
  const due = dueDateOf(s);
  if (due) return dueKeys(s, due);
  return s.status === 'past_due' && s.awaiting_card ? subscriptionKeys.awaitingCard(s.awaiting_card, s.id) : undefined;
};

/** The date the subscription is due in the renewal index, or null when it must not be there (sparse index). */
export function dueDateOf(s: Pick<SubscriptionRecord, 'status' | 'next_billing' | 'retry_at'>): string | null {
  if (s.status === 'active') return s.next_billing;
  if (s.status === 'past_due') return s.retry_at;
  return null;
}

export const subscriptionTarget = (s: Pick<SubscriptionRecord, 'id' | 'merchant_id' | 'livemode'>): Target => ({
  entity: 'subscription',
  id: s.id,
  owner: { merchant_id: s.merchant_id, livemode: s.livemode },
});

/** A new subscription for `commit`: listed, and in the renewal index while it renews. */
export function subscriptionCreate(subscription: SubscriptionRecord): Create {
  return { create: subscriptionTarget(subscription), item: { ...subscription, ...indexKeysOf(subscription) } };
}

/**
 * An update of the subscription for `commit`: `transition` with `changes`, on the condition that the fields of `expect`
 * still hold. The renewal index follows the state the transition leads to (added, moved or removed).
 */
export function subscriptionUpdate(
  subscription: SubscriptionRecord,
  transition: Transition<SubscriptionStatus>,
  changes: Partial<SubscriptionRecord>,
  expect?: Partial<Pick<SubscriptionRecord, 'next_billing' | 'retry_attempt' | 'cancel_at_period_end' | 'awaiting_card'>>,
): Update {
  const keys = indexKeysOf({ ...subscription, ...changes, status: transition.to });
  return { update: subscriptionTarget(subscription), transition, expect, set: { ...changes, ...keys }, unset: keys ? [] : ['gsi2pk', 'gsi2sk'] };
}

/** The merchant's change of terms for `commit`: the fields only, while the subscription is in one of `states`. */
export const subscriptionChange = (
  subscription: SubscriptionRecord,
  states: readonly SubscriptionStatus[],
  changes: Partial<Pick<SubscriptionRecord, 'amount' | 'plan' | 'metadata' | 'cancel_at_period_end' | 'updated_at'>>,
): Update => ({ update: subscriptionTarget(subscription), inStates: states, set: changes });

/** The subscription as the table holds it, checked when read back (see item-schemas.ts). */
const SubscriptionItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  test_clock: v.optional(nullable(Text)),
  customer_id: Text,
  payment_method: v.optional(nullable(Text), null),
  plan: Text,
  amount: Int,
  currency: Text,
  interval: v.picklist(INTERVALS),
  interval_count: Int,
  billing_anchor: Text,
  status: picklistOf<SubscriptionStatus>()(['active', 'paused', 'past_due', 'cancelled']),
  current_period_start: Text,
  next_billing: Text,
  retry_attempt: nullable(Int),
  retry_at: nullable(Text),
  retry_reason: nullable(Text),
  awaiting_card: nullable(Text),
  latest_invoice: nullable(Text),
  metadata: StringMap,
  cancel_at_period_end: v.boolean(),
  created_at: Text,
  updated_at: Text,
  cancelled_at: nullable(Text),
});
const subscriptionOf: (item: Record<string, unknown>) => SubscriptionRecord = recordReader('subscription', SubscriptionItem);

/** Any merchant's subscription (workers). */
export async function loadSubscription(subscriptionId: string): Promise<SubscriptionRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: subscriptionKeys.item(subscriptionId), ConsistentRead: true }));
  return out.Item ? subscriptionOf(out.Item) : undefined;
}

/** The owner's subscription, or undefined when missing or another merchant's or mode's. */
export async function getSubscription(owner: Owner, subscriptionId: string): Promise<SubscriptionRecord | undefined> {
  const subscription = await loadSubscription(subscriptionId);
  return ownedBy(subscription, owner) ? subscription : undefined;
}

/**
 * The customer's subscriptions that are not cancelled (id and status), read from the owner's list with a filter:
 * what keeps a customer from being deleted.
 */
export async function openSubscriptionsOf(owner: Owner, customerId: string): Promise<Pick<SubscriptionRecord, 'id' | 'status'>[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: 'customer_id = :customer AND #status <> :cancelled',
    ProjectionExpression: 'id, #status',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': subscriptionKeys.listPartition(owner), ':customer': customerId, ':cancelled': 'cancelled' },
  });
  return items.map((item) => ({ id: String(item.id), status: item.status as SubscriptionStatus }));
}

/**
 * The owner's subscriptions that are not cancelled and charge the payment method: they name it, or (`defaultOf`: it is
 * that customer's default) they name none and are that customer's. Read from the owner's list with a filter.
 */
export async function openSubscriptionsCharging(
  owner: Owner,
  paymentMethodId: string,
  defaultOf?: string,
): Promise<Pick<SubscriptionRecord, 'id' | 'status'>[]> {
  const byDefault = defaultOf ? ' OR (customer_id = :customer AND (attribute_not_exists(payment_method) OR payment_method = :none))' : '';
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: `#status <> :cancelled AND (payment_method = :pm${byDefault})`,
    ProjectionExpression: 'id, #status',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': subscriptionKeys.listPartition(owner),
      ':cancelled': 'cancelled',
      ':pm': paymentMethodId,
      ...(defaultOf ? { ':customer': defaultOf, ':none': null } : {}),
    },
  });
  return items.map((item) => ({ id: String(item.id), status: item.status as SubscriptionStatus }));
}

export interface SubscriptionFilters {
  status?: SubscriptionStatus;
  customer_id?: string;
}

export async function listSubscriptions(owner: Owner, filters: SubscriptionFilters, page: PageQuery): Promise<Page<SubscriptionRecord>> {
  const filter = equalityFilter({ status: filters.status, customer_id: filters.customer_id });
  const result = await listPage(merchantList(subscriptionKeys, owner, filter), page);
  return { data: result.data.map(subscriptionOf), has_more: result.has_more };
}

/**
 * Every subscription due on or before `today`, read from the sparse renewal index (one query per shard, the shards
 * in parallel, each paged): active ones on their `next_billing`, past_due ones on their next retry date. Each page
 * is handed to `onPage` as it arrives, so memory stays flat however many are due. Never a table scan.
 */
export async function forEachDueSubscription(today: string, onPage: (due: SubscriptionRecord[]) => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: RENEWAL_SHARDS }, async (_, shard) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await db.send(
          new QueryCommand({
            TableName: TABLE,
            IndexName: 'gsi2',
            KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :until',
            // `~` sorts after every id character: everything due on `today` is included.
            ExpressionAttributeValues: { ':pk': subscriptionKeys.duePartition(shard), ':until': `${today}#~` },
            ExclusiveStartKey: startKey,
          }),
        );
        await onPage((out.Items ?? []).map(subscriptionOf));
        startKey = out.LastEvaluatedKey;
      } while (startKey);
    }),
  );
}

/** The subscriptions of a test clock due on or before `day` (its own renewal partition), earliest due first. */
export async function dueOnClock(clockId: string, day: string): Promise<SubscriptionRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :until',
    ExpressionAttributeValues: { ':pk': subscriptionKeys.dueOnClockPartition(clockId), ':until': `${day}#~` },
  });
  return items.map(subscriptionOf);
}

/** The earliest due date in a test clock's renewal partition, if any subscription renews on it. */
export async function nextDueOnClock(clockId: string): Promise<string | undefined> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': subscriptionKeys.dueOnClockPartition(clockId) },
      ProjectionExpression: 'gsi2sk',
      Limit: 1,
    }),
  );
  const sk = out.Items?.[0]?.gsi2sk;
  return typeof sk === 'string' ? sk.split('#')[0] : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The renewal of one period: a row per subscription and period that makes the renewal idempotent (its states are
// the PERIOD table of model/state-machines.ts).
//
//   open      claimed by one worker (`claim`, `lease_until`): the invoice is made, then the charge or the send
//   charging  the card is being charged: never charged again from here, whatever happens
//   settled   paid by card (`payment_id`) or invoice sent; only the subscription's advance may remain to do
//   failed    attempt `attempt` was declined; the next retry claims the row again with attempt + 1
// ---------------------------------------------------------------------------------------------------------------

export type { PeriodState };

export interface PeriodRecord {
  subscription_id: string;
  period_start: string;
  state: PeriodState;
  attempt: number;
  claim: string;
  lease_until: number;
  invoice_id?: string;
  payment_id?: string;
  /** charged the card on file, e-mailed the invoice, or found the invoice already paid (mark-paid after a decline) */
  outcome?: 'charged' | 'invoice_sent' | 'paid_elsewhere';
  decline_code?: string;
  /** the card's charge cap was reached: nothing was sent, the period waits until this date */
  capped_until?: string;
  created_at: string;
  updated_at: string;
}

/** The period row as the table holds it, checked when read back (see item-schemas.ts). */
const PeriodItem = v.object({
  subscription_id: Text,
  period_start: Text,
  state: picklistOf<PeriodState>()(['open', 'charging', 'settled', 'failed']),
  attempt: Int,
  claim: Text,
  lease_until: Int,
  invoice_id: v.optional(Text),
  payment_id: v.optional(Text),
  outcome: v.optional(picklistOf<NonNullable<PeriodRecord['outcome']>>()(['charged', 'invoice_sent', 'paid_elsewhere'])),
  decline_code: v.optional(Text),
  capped_until: v.optional(Text),
  created_at: Text,
  updated_at: Text,
});
const periodOf: (item: Record<string, unknown>) => PeriodRecord = recordReader('subscription period', PeriodItem);

export async function getPeriod(subscriptionId: string, periodStart: string): Promise<PeriodRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: subscriptionKeys.period(subscriptionId, periodStart), ConsistentRead: true }));
  return out.Item ? periodOf(out.Item) : undefined;
}

export const periodTarget = (subscriptionId: string, periodStart: string): Target => ({ entity: 'subscription_period', subscriptionId, periodStart });

/**
 * Changes the period row only while this worker's claim holds it: its state changed by `step` (a PERIOD transition),
 * or, without one, while it is `open`. False when it lost the claim (or the state was not the step's).
 */
export async function stepClaimedPeriod(
  period: PeriodRecord,
  step: Transition<PeriodState> | undefined,
  changes: Partial<Omit<PeriodRecord, 'subscription_id' | 'period_start' | 'claim' | 'state'>>,
  now: string,
): Promise<boolean> {
  const updated = await commit({
    writes: [
      {
        update: periodTarget(period.subscription_id, period.period_start),
        ...(step ? { transition: step } : { inStates: ['open'] }),
        expect: { claim: period.claim },
        set: { ...changes, updated_at: now },
      },
    ],
  });
  return updated === 'committed';
}

/** The past_due subscriptions waiting for this payment method's update (expired_card), from the sparse index. */
export async function awaitingCard(paymentMethodId: string): Promise<SubscriptionRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': subscriptionKeys.awaitingCardPartition(paymentMethodId) },
  });
  return items.map(subscriptionOf);
}
