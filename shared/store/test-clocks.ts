import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { DomainEvent } from '../model/events.ts';
import { TEST_CLOCK, type Transition } from '../model/state-machines.ts';
import { conditionalWrite, db, TABLE } from './client.ts';
import { commit } from './commit.ts';
import { statusIn } from './expressions.ts';
import { nullable, recordReader, Text } from './item-schemas.ts';
import { customerKeys, invoiceKeys, ownedBy, subscriptionKeys, testClockKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { listPage, merchantList, type Page, type PageQuery, queryAll } from './pagination.ts';

/**
 * A test clock: the time its customers' billing follows. `frozen_time` moves only forward, by an advance: `status`
 * advancing with `target_time` until the advance has run every piece of due work up to it (`frozen_time` records how
 * far it got, so a crashed advance resumes there), then ready.
 */
export interface TestClockRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string | null;
  frozen_time: string;
  status: 'ready' | 'advancing';
  target_time: string | null;
  /** the customers bound to it (few: see MAX_CUSTOMERS_PER_CLOCK) */
  customer_ids: string[];
  created_at: string;
  updated_at: string;
}

const TestClockItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  name: nullable(Text),
  frozen_time: Text,
  status: v.picklist(['ready', 'advancing']),
  target_time: nullable(Text),
  customer_ids: v.array(Text),
  created_at: Text,
  updated_at: Text,
});
const testClockOf: (item: Record<string, unknown>) => TestClockRecord = recordReader('test clock', TestClockItem);

/** Stores a new clock; false when one is stored under its id already. */
export async function putTestClock(clock: TestClockRecord): Promise<boolean> {
  const owner = { merchant_id: clock.merchant_id, livemode: clock.livemode };
  return (await commit({ writes: [{ create: { entity: 'test_clock', id: clock.id, owner }, item: { ...clock } }] })) === 'committed';
}

/** Any owner's clock (its advance worker). */
export async function loadTestClock(clockId: string): Promise<TestClockRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: testClockKeys.item(clockId), ConsistentRead: true }));
  return out.Item ? testClockOf(out.Item) : undefined;
}

/** The owner's clock, or undefined when missing or another merchant's or mode's. */
export async function getTestClock(owner: Owner, clockId: string): Promise<TestClockRecord | undefined> {
  const clock = await loadTestClock(clockId);
  return ownedBy(clock, owner) ? clock : undefined;
}

export async function listTestClocks(owner: Owner, page: PageQuery): Promise<Page<TestClockRecord>> {
  const result = await listPage(merchantList(testClockKeys, owner), page);
  return { data: result.data.map(testClockOf), has_more: result.has_more };
}

/**
 * `advance` (TEST_CLOCK) towards `target`: the clock enters the advancing index; undefined when its state does not
 * allow it (already advancing).
 */
export async function beginAdvance(clock: TestClockRecord, advance: Transition, target: string, at: string): Promise<TestClockRecord | undefined> {
  const set = { target_time: target, updated_at: at, ...testClockKeys.advancing(at, clock.id) };
  const begun = await commit({ writes: [{ update: { entity: 'test_clock', id: clock.id }, transition: advance, set }] });
  return begun === 'committed' ? { ...clock, status: advance.to as TestClockRecord['status'], target_time: target, updated_at: at } : undefined;
}

/** How far an advance got: every piece of work due up to `frozenTime` is done (never moves it back). */
export async function recordAdvance(clockId: string, frozenTime: string, at: string): Promise<boolean> {
  const recorded = await commit({
    writes: [
      {
        update: { entity: 'test_clock', id: clockId },
        // the states an advance runs in: those it finishes from
        inStates: TEST_CLOCK.finish.from,
        atMost: { frozen_time: frozenTime },
        set: { frozen_time: frozenTime, updated_at: at, gsi2sk: testClockKeys.advancing(at, clockId).gsi2sk },
      },
    ],
  });
  return recorded === 'committed';
}

/** The ids of clocks advancing that have not moved since `before` (their worker died, or their message was lost). */
export async function stalledAdvances(before: string): Promise<string[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :before',
    ExpressionAttributeValues: { ':pk': testClockKeys.advancingPartition, ':before': before },
    ProjectionExpression: 'id',
  });
  return items.map((item) => String(item.id));
}

/** `finish` (TEST_CLOCK) at its target, with its `test_clock.ready` event, once: the clock leaves the advancing index. */
export async function finishAdvance(
  clock: TestClockRecord & { target_time: string },
  finish: Transition,
  at: string,
  event: DomainEvent,
): Promise<boolean> {
  const finished = await commit({
    writes: [
      {
        update: { entity: 'test_clock', id: clock.id },
        transition: finish,
        expect: { target_time: clock.target_time },
        set: { frozen_time: clock.target_time, target_time: null, updated_at: at },
        unset: ['gsi2pk', 'gsi2sk'],
      },
    ],
    events: [event],
  });
  return finished === 'committed';
}

/**
 * Binds a customer to the clock (at most `max` per clock, only while an advance may start: a clock being advanced
 * takes none); true when it is bound (a retried create finds it bound already).
 */
export async function bindCustomer(clockId: string, customerId: string, max: number): Promise<boolean> {
  const ready = statusIn(TEST_CLOCK.advance.from);
  const bound = await conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: testClockKeys.item(clockId),
      UpdateExpression: 'SET customer_ids = list_append(customer_ids, :one)',
      ConditionExpression: `attribute_exists(pk) AND ${ready.expression} AND size(customer_ids) < :max AND NOT contains(customer_ids, :id)`,
      ExpressionAttributeNames: ready.names,
      ExpressionAttributeValues: { ':one': [customerId], ':id': customerId, ':max': max, ...ready.values },
    }),
  );
  return bound || ((await loadTestClock(clockId))?.customer_ids.includes(customerId) ?? false);
}

/** Deletes the clock itself (its objects first: see domain/test-clocks.ts); false when it is gone already. */
export async function deleteTestClock(clockId: string): Promise<boolean> {
  return (await commit({ writes: [{ remove: { entity: 'test_clock', id: clockId } }] })) === 'committed';
}

/**
 * Deletes what is bound to a clock: its customers, and their subscriptions (with their renewal rows) and invoices,
 * found in the owner's lists. Payments stay: they are the ledger's. Safe to run again after a crash midway.
 */
export async function deleteClockObjects(owner: Owner, customerIds: readonly string[]): Promise<number> {
  if (customerIds.length === 0) return 0;
  const ofCustomers = {
    FilterExpression: `customer_id IN (${customerIds.map((_, i) => `:c${i}`).join(', ')})`,
    ExpressionAttributeValues: Object.fromEntries(customerIds.map((id, i) => [`:c${i}`, id])),
  };
  const listed = async (partition: string) =>
    queryAll({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ...ofCustomers,
      ExpressionAttributeValues: { ':pk': partition, ...ofCustomers.ExpressionAttributeValues },
      ProjectionExpression: 'pk',
    });
  const [subscriptions, invoices] = await Promise.all([listed(subscriptionKeys.listPartition(owner)), listed(invoiceKeys.listPartition(owner))]);
  // each subscription's partition holds the subscription and its renewal rows
  const partitions = [...subscriptions, ...invoices].map((item) => String(item.pk));
  const rows = (
    await Promise.all(
      partitions.map((pk) =>
        queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: 'pk, sk' }),
      ),
    )
  ).flat();
  const keys = [...rows.map((row) => ({ pk: String(row.pk), sk: String(row.sk) })), ...customerIds.map((id) => customerKeys.item(id))];
  await Promise.all(keys.map((Key) => db.send(new DeleteCommand({ TableName: TABLE, Key }))));
  return keys.length;
}
