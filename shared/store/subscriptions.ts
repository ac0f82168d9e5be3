import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Interval } from '../domain/billing-dates.ts';
import type { DomainEvent } from '../domain/events.ts';
import { assignments, equalityFilter } from './expressions.ts';
import { db, isConditionFailure, TABLE } from './client.ts';
import { eventPut } from './events.ts';
import { RENEWAL_SHARDS, subscriptionKeys } from './keys.ts';
import { listPage, merchantList, type Page, type PageQuery } from './pagination.ts';

export type SubscriptionStatus = 'active' | 'paused' | 'past_due' | 'cancelled';

export interface SubscriptionRecord {
  id: string;
  merchant_id: string;
  /** the mode of the credential that created it: renewals charge through the same (sandbox or live) providers */
  livemode: boolean;
  customer_id: string;
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
  /** past_due: the next retry's number (1–3) and date; null when none is scheduled */
  retry_attempt: number | null;
  retry_at: string | null;
  /** the invoice of the latest renewed (or failing) period */
  latest_invoice: string | null;
  metadata: Record<string, string>;
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

const dueKeys = (subscriptionId: string, dueDate: string) => subscriptionKeys.due(renewalShard(subscriptionId), dueDate, subscriptionId);

/** The date the subscription is due in the renewal index, or null when it must not be there (sparse index). */
export function dueDateOf(s: Pick<SubscriptionRecord, 'status' | 'next_billing' | 'retry_at'>): string | null {
  if (s.status === 'active') return s.next_billing;
  if (s.status === 'past_due') return s.retry_at;
  return null;
}

/** Stores a new subscription (in the renewal index while it renews) and its event, in one transaction. */
export async function putSubscription(subscription: SubscriptionRecord, event: DomainEvent): Promise<void> {
  const due = dueDateOf(subscription);
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: {
              ...subscriptionKeys.item(subscription.id),
              ...subscriptionKeys.list(subscription.merchant_id, subscription.id),
              ...(due ? dueKeys(subscription.id, due) : {}),
              type: 'subscription',
              ...subscription,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        eventPut(event),
      ],
    }),
  );
}

const KEY_FIELDS = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'type'];
const strip = (item: Record<string, unknown>): SubscriptionRecord => {
  const out = { ...item };
  for (const field of KEY_FIELDS) delete out[field];
  return out as unknown as SubscriptionRecord;
};

/** Any merchant's subscription (workers). */
export async function loadSubscription(subscriptionId: string): Promise<SubscriptionRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: subscriptionKeys.item(subscriptionId), ConsistentRead: true }));
  return out.Item ? strip(out.Item) : undefined;
}

/** The merchant's subscription, or undefined when missing or another merchant's. */
export async function getSubscription(merchantId: string, subscriptionId: string): Promise<SubscriptionRecord | undefined> {
  const subscription = await loadSubscription(subscriptionId);
  return subscription?.merchant_id === merchantId ? subscription : undefined;
}

export interface Transition {
  /** the statuses the subscription must still be in */
  from: readonly SubscriptionStatus[];
  /** fields that must still hold these values (e.g. the `next_billing` a renewal was computed for) */
  expect?: Partial<Pick<SubscriptionRecord, 'next_billing' | 'retry_attempt'>>;
  changes: Partial<SubscriptionRecord>;
}

/**
 * Applies a state change as a conditional update and writes its event in the same transaction; the renewal index
 * follows (added, moved or removed by the new state). Undefined when the condition failed: someone moved first.
 */
export async function transitionSubscription(
  subscription: SubscriptionRecord,
  transition: Transition,
  event: (updated: SubscriptionRecord) => DomainEvent,
): Promise<SubscriptionRecord | undefined> {
  const updated: SubscriptionRecord = { ...subscription, ...transition.changes };
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {};
  const sets = assignments(Object.entries(transition.changes), names, values);
  const due = dueDateOf(updated);
  let remove = '';
  if (due) {
    const keys = dueKeys(subscription.id, due);
    Object.assign(values, { ':gsi2pk': keys.gsi2pk, ':gsi2sk': keys.gsi2sk });
    sets.push('gsi2pk = :gsi2pk', 'gsi2sk = :gsi2sk');
  } else {
    remove = ' REMOVE gsi2pk, gsi2sk';
  }
  transition.from.forEach((status, i) => (values[`:from${i}`] = status));
  const conditions = ['attribute_exists(pk)', `#status IN (${transition.from.map((_, i) => `:from${i}`).join(', ')})`];
  Object.entries(transition.expect ?? {}).forEach(([field, value], i) => {
    names[`#e${i}`] = field;
    values[`:e${i}`] = value;
    conditions.push(`#e${i} = :e${i}`);
  });
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: TABLE,
              Key: subscriptionKeys.item(subscription.id),
              UpdateExpression: `SET ${sets.join(', ')}${remove}`,
              ConditionExpression: conditions.join(' AND '),
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          },
          eventPut(event(updated)),
        ],
      }),
    );
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
  return updated;
}

export interface SubscriptionFilters {
  status?: SubscriptionStatus;
  customer_id?: string;
}

export async function listSubscriptions(merchantId: string, filters: SubscriptionFilters, page: PageQuery): Promise<Page<SubscriptionRecord>> {
  const filter = equalityFilter({ status: filters.status, customer_id: filters.customer_id });
  const result = await listPage<Record<string, unknown>>(
    merchantList(subscriptionKeys, merchantId, filter),
    page,
  );
  return { data: result.data.map(strip), has_more: result.has_more };
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
        await onPage((out.Items ?? []).map(strip));
        startKey = out.LastEvaluatedKey;
      } while (startKey);
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The renewal of one period: a row per subscription and period that makes the renewal idempotent.
//
//   open      claimed by one worker (`claim`, `lease_until`): the invoice is made, then the charge or the send
//   charging  the card is being charged: never charged again from here, whatever happens
//   settled   paid by card (`payment_id`) or invoice sent; only the subscription's advance may remain to do
//   failed    attempt `attempt` was declined; the next retry claims the row again with attempt + 1
// ---------------------------------------------------------------------------------------------------------------

export type PeriodState = 'open' | 'charging' | 'settled' | 'failed';

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
  created_at: string;
  updated_at: string;
}

export async function getPeriod(subscriptionId: string, periodStart: string): Promise<PeriodRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: subscriptionKeys.period(subscriptionId, periodStart), ConsistentRead: true }));
  return out.Item as PeriodRecord | undefined;
}

/**
 * Claims attempt `attempt` of a period for one worker: the first attempt only if the period was never claimed, a
 * retry only right after the previous attempt failed; either may also take over an `open` claim of the same attempt
 * whose lease ran out (a worker died before charging). Undefined when the claim is not to be had.
 */
export async function claimPeriod(
  subscriptionId: string,
  periodStart: string,
  attempt: number,
  claim: string,
  now: number,
  leaseMs: number,
): Promise<PeriodRecord | undefined> {
  const values: Record<string, unknown> = {
    ':open': 'open',
    ':attempt': attempt,
    ':claim': claim,
    ':until': now + leaseMs,
    ':now': now,
    ':iso': new Date(now).toISOString(),
    ':sub': subscriptionId,
    ':period': periodStart,
    ':type': 'subscription_period',
  };
  const expired = '(#state = :open AND attempt = :attempt AND lease_until < :now)';
  let condition: string;
  if (attempt === 0) {
    condition = `attribute_not_exists(pk) OR ${expired}`;
  } else {
    Object.assign(values, { ':failed': 'failed', ':previous': attempt - 1 });
    condition = `(#state = :failed AND attempt = :previous) OR ${expired}`;
  }
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: subscriptionKeys.period(subscriptionId, periodStart),
        UpdateExpression:
          'SET #state = :open, attempt = :attempt, claim = :claim, lease_until = :until, subscription_id = :sub, period_start = :period, #type = :type, created_at = if_not_exists(created_at, :iso), updated_at = :iso',
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#state': 'state', '#type': 'type' },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as PeriodRecord;
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
}

/**
 * Takes over a period left `charging` by a run whose lease ran out (it died mid-charge): the new claim and lease,
 * on the condition that nobody took it over first. Undefined when another run did, or the lease still holds.
 */
export async function takeOverCharging(period: PeriodRecord, claim: string, now: number, leaseMs: number): Promise<PeriodRecord | undefined> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: subscriptionKeys.period(period.subscription_id, period.period_start),
        UpdateExpression: 'SET claim = :claim, lease_until = :until, updated_at = :iso',
        ConditionExpression: '#state = :charging AND claim = :previous AND lease_until < :now',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':charging': 'charging',
          ':previous': period.claim,
          ':claim': claim,
          ':until': now + leaseMs,
          ':now': now,
          ':iso': new Date(now).toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as PeriodRecord;
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
}

/** Changes the period row only while this worker's claim holds it in one of `states`. False when it lost the claim. */
export async function updateClaimedPeriod(
  period: PeriodRecord,
  states: readonly PeriodState[],
  changes: Partial<Omit<PeriodRecord, 'subscription_id' | 'period_start' | 'claim'>>,
  now: string,
): Promise<boolean> {
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':claim': period.claim, ':now': now };
  states.forEach((s, i) => (values[`:s${i}`] = s));
  const sets = assignments(Object.entries(changes), names, values);
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: subscriptionKeys.period(period.subscription_id, period.period_start),
        UpdateExpression: `SET ${[...sets, 'updated_at = :now'].join(', ')}`,
        ConditionExpression: `claim = :claim AND #state IN (${states.map((_, i) => `:s${i}`).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}
