import { describe, expect, it } from 'vitest';
import { newEvent } from '../../shared/model/events.ts';
import { CONNECTOR, PAYMENT, SETTLEMENT, TEST_CLOCK } from '../../shared/model/state-machines.ts';
import type { TransactItem } from '../../shared/store/client.ts';
import { type Change, transactItemsOf } from '../../shared/store/commit.ts';
import type { Operation, Target } from '../../shared/model/targets.ts';
import {
  connectorKeys,
  eventKeys,
  reconciliationKeys,
  routingCopyKeys,
  routingRuleKeys,
  settlementKeys,
  testClockKeys,
} from '../../shared/store/keys.ts';

/** An update's or delete's condition (or an update's expression) with its names and values written in. */
function resolved(expression: string | undefined, names: Record<string, string> = {}, values: Record<string, unknown> = {}): string {
  return (expression ?? '')
    .replace(/#\w+/g, (name) => names[name] ?? name)
    .replace(/:\w+/g, (value) => (value in values ? JSON.stringify(values[value]) : value));
}
const condition = (item: TransactItem) => {
  const write = item.Update ?? item.Put ?? item.Delete!;
  return resolved(write.ConditionExpression, write.ExpressionAttributeNames, write.ExpressionAttributeValues);
};
const update = (item: TransactItem) =>
  resolved(item.Update!.UpdateExpression, item.Update!.ExpressionAttributeNames, item.Update!.ExpressionAttributeValues);

const owner = { merchant_id: 'mer_1', livemode: false };

describe('transactItemsOf', () => {
  it('makes a settlement, its day marker and its swept cells one transaction of creates and counters', () => {
    // Prepare
    const settlement = { id: 'set_1', ...owner, amount: 500, currency: 'USD', status: 'pending', arrival_date: '2027-01-03' };
    const cell: TransactItem = { Update: { TableName: 'T', Key: { pk: 'cell', sk: 'BAL' }, UpdateExpression: 'ADD amount :a' } };
    const change: Change = {
      writes: [
        { create: { entity: 'settlement_day', owner, day: '2027-01-01', currency: 'USD' }, item: { settlement_id: 'set_1' } },
        { create: { entity: 'settlement', id: 'set_1', owner }, item: { ...settlement, ...settlementKeys.pendingIndex('2027-01-03', 'set_1') } },
      ],
      counters: [cell],
    };
    // Act
    const [day, created, counter, ...rest] = transactItemsOf(change, 1);
    // Assess
    expect(rest).toEqual([]);
    expect(day!.Put).toMatchObject({
      Item: { ...settlementKeys.daily(owner, '2027-01-01', 'USD'), type: 'settlement_day', settlement_id: 'set_1' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(created!.Put).toMatchObject({
      Item: {
        ...settlementKeys.item('set_1'),
        ...settlementKeys.list(owner, 'set_1'),
        ...settlementKeys.pendingIndex('2027-01-03', 'set_1'),
        ...settlement,
        type: 'settlement',
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(counter).toBe(cell);
  });

  it("pays a settlement under SETTLEMENT's condition, with its event, out of the pending index", () => {
    // Prepare
    const event = newEvent(owner, SETTLEMENT.pay.event, { id: 'set_1', object: 'settlement' });
    const change: Change = {
      writes: [
        {
          update: { entity: 'settlement', id: 'set_1', owner },
          transition: SETTLEMENT.pay,
          set: { paid_at: '2027-01-03T00:00:00.000Z' },
          unset: ['gsi2pk', 'gsi2sk'],
        },
      ],
      events: [event],
    };
    // Act
    const [paid, put, ...rest] = transactItemsOf(change, 1);
    // Assess
    expect(rest).toEqual([]);
    expect(paid!.Update!.Key).toEqual(settlementKeys.item('set_1'));
    expect(condition(paid!)).toBe('attribute_exists(pk) AND status IN ("pending")');
    expect(update(paid!)).toBe('SET status = "paid", paid_at = "2027-01-03T00:00:00.000Z" REMOVE gsi2pk, gsi2sk, change');
    expect(put!.Put).toMatchObject({
      Item: { ...eventKeys.item(event.id, 'set_1'), type: 'event', event_type: 'settlement.paid' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it("advances and finishes a test clock under TEST_CLOCK's conditions", () => {
    // Prepare
    const advancing = testClockKeys.advancing('2027-01-01T00:00:00.000Z', 'clk_1');
    const event = newEvent(owner, TEST_CLOCK.finish.event, { id: 'clk_1', object: 'test_clock' });
    const begin: Change = {
      writes: [{ update: { entity: 'test_clock', id: 'clk_1' }, transition: TEST_CLOCK.advance, set: { target_time: '2027-02-01', ...advancing } }],
    };
    const progress: Change = {
      writes: [{ update: { entity: 'test_clock', id: 'clk_1' }, inStates: TEST_CLOCK.finish.from, atMost: { frozen_time: '2027-01-15' } }],
    };
    const finish: Change = {
      writes: [
        {
          update: { entity: 'test_clock', id: 'clk_1' },
          transition: TEST_CLOCK.finish,
          expect: { target_time: '2027-02-01' },
          set: { frozen_time: '2027-02-01', target_time: null },
          unset: ['gsi2pk', 'gsi2sk'],
        },
      ],
      events: [event],
    };
    // Act
    const [begun] = transactItemsOf(begin, 1);
    const [recorded] = transactItemsOf(progress, 1);
    const [finished, put] = transactItemsOf(finish, 1);
    // Assess
    expect(begun!.Update!.Key).toEqual(testClockKeys.item('clk_1'));
    expect(condition(begun!)).toBe('attribute_exists(pk) AND status IN ("ready")');
    expect(update(begun!)).toBe(
      `SET status = "advancing", target_time = "2027-02-01", gsi2pk = "${advancing.gsi2pk}", gsi2sk = "${advancing.gsi2sk}" REMOVE change`,
    );
    expect(condition(recorded!)).toBe('attribute_exists(pk) AND status IN ("advancing") AND frozen_time <= "2027-01-15"');
    expect(condition(finished!)).toBe('attribute_exists(pk) AND status IN ("advancing") AND target_time = "2027-02-01"');
    expect(update(finished!)).toBe('SET status = "ready", frozen_time = "2027-02-01", target_time = null REMOVE gsi2pk, gsi2sk, change');
    expect(put!.Put!.Item).toMatchObject({ type: 'event', event_type: 'test_clock.ready' });
  });
});

describe('an operation on its item', () => {
  const payment: Target = { entity: 'payment', id: 'pay_1', owner };
  const op: Operation = { id: 'op_1', kind: 'capture', lease_until: Date.parse('2027-01-01T12:00:00Z'), provider: 'stripe', reference: 'pi_1' };
  const only = (change: Change) => {
    const items = transactItemsOf(change, 1);
    expect(items).toHaveLength(1);
    return items[0]!;
  };

  it('begins only where no operation is held, and indexes its lease', () => {
    // Act
    const begun = only({ writes: [{ update: payment, inStates: PAYMENT.capture.from, operation: { begin: op } }] });
    // Assess
    expect(begun.Update!.Key).toEqual({ pk: 'PAY#pay_1', sk: 'PAY' });
    expect(condition(begun)).toBe('attribute_exists(pk) AND status IN ("succeeded") AND attribute_not_exists(op)');
    expect(update(begun)).toContain(`op = ${JSON.stringify(op)}`);
    expect(update(begun)).toMatch(/gsi2pk = "LEASE#\d+", gsi2sk = "2027-01-01T12:00:00.000Z#PAY#pay_1#PAY"/);
  });

  it('finishes with the move, its event and its counters in one transaction', () => {
    // Prepare
    const event = newEvent(owner, 'payment.captured', { id: 'pay_1', object: 'payment' });
    const cell: TransactItem = { Update: { TableName: 'T', Key: { pk: 'cell', sk: 'CNT' }, UpdateExpression: 'ADD amount :a' } };
    // Act
    const [moved, put, counter, ...rest] = transactItemsOf(
      {
        writes: [{ update: payment, transition: PAYMENT.capture, set: { amount_captured: 500 }, operation: { finish: op.id } }],
        events: [event],
        counters: [cell],
      },
      1,
    );
    // Assess
    expect(rest).toEqual([]);
    expect(condition(moved!)).toBe('attribute_exists(pk) AND status IN ("succeeded") AND op.id = "op_1"');
    expect(update(moved!)).toMatch(/^SET status = "captured", .*amount_captured = 500 REMOVE change, op, gsi2pk, gsi2sk$/);
    expect(put!.Put).toMatchObject({ Item: { type: 'event', event_type: 'payment.captured' }, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(counter).toBe(cell);
  });

  it('is taken over only once its lease ended, and its lease renewed', () => {
    // Act
    const now = op.lease_until + 1;
    const taken = only({ writes: [{ update: payment, operation: { takeOver: op.id, now, leaseUntil: now + 70_000 } }] });
    // Assess
    expect(condition(taken)).toBe(`attribute_exists(pk) AND op.id = "op_1" AND op.lease_until < ${now}`);
    expect(update(taken)).toContain(`op.lease_until = ${now + 70_000}`);
  });

  it('creates its item only where none exists, listed once visible', () => {
    // Act
    const processing = only({ writes: [{ create: payment, item: { id: 'pay_1', status: 'processing' }, operation: op }] });
    const failed = only({ writes: [{ create: payment, item: { id: 'pay_1', status: 'failed' } }] });
    // Assess
    expect(processing.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { pk: 'PAY#pay_1', op, type: 'payment' } });
    expect(processing.Put!.Item).not.toHaveProperty('gsi1pk');
    expect(failed.Put!.Item).toMatchObject({ gsi1pk: 'MER#mer_1:test#PAY', gsi1sk: 'pay_1' });
  });

  it('removes an item it found empty only while it holds it', () => {
    // Act
    const removed = only({ writes: [{ remove: payment, operation: op.id, inStates: ['processing'] }] });
    // Assess
    expect(removed.Delete!.Key).toEqual({ pk: 'PAY#pay_1', sk: 'PAY' });
    expect(condition(removed)).toBe('op.id = "op_1" AND status IN ("processing")');
  });
});

describe('transactItemsOf, for the items of a merchant', () => {
  const connector = { entity: 'connector', id: 'con_1', owner } as const;

  it("moves a connector's routing copy along CONNECTOR like the item, in the copy's partition", () => {
    // Act
    const [item, copy] = transactItemsOf(
      {
        writes: [
          { update: connector, transition: CONNECTOR.disable, expect: { mode: 'test' } },
          { update: { ...connector, copy: 1 }, transition: CONNECTOR.disable },
        ],
      },
      1,
    );
    // Assess
    expect(item!.Update!.Key).toEqual(connectorKeys.item(owner, 'con_1'));
    expect(copy!.Update!.Key).toEqual(routingCopyKeys.of(owner, 1, connectorKeys.item(owner, 'con_1').sk));
    expect(condition(item!)).toBe('attribute_exists(pk) AND status IN ("active", "disabled") AND mode = "test"');
    expect(condition(copy!)).toBe('attribute_exists(pk) AND status IN ("active", "disabled")');
    expect(update(copy!)).toBe('SET status = "disabled" REMOVE change');
  });

  it('creates a connector findable by its id and listed for reconciliation; its routing copies in no index', () => {
    // Act
    const [item, copy] = transactItemsOf(
      {
        writes: [
          { create: connector, item: { id: 'con_1' } },
          { create: { ...connector, copy: 0 }, item: { id: 'con_1' } },
        ],
      },
      1,
    );
    // Assess
    expect(item!.Put!.Item).toMatchObject({ ...connectorKeys.byId('con_1'), ...reconciliationKeys.account('con_1'), type: 'connector' });
    expect(Object.keys(copy!.Put!.Item!).sort()).toEqual(['id', 'pk', 'sk', 'type']);
  });

  it('counts under a cap, keeps an expiry not passed, sets a default only where none is, and deletes what exists', () => {
    // Act
    const [count, attach, setDefault, deleted] = transactItemsOf(
      {
        writes: [
          { update: { entity: 'merchant', id: 'mer_1' }, add: { rule_count: 1 }, below: { rule_count: 50 } },
          { update: { entity: 'payment_method', id: 'pm_1', owner }, above: { expires_at: 1000 }, unset: ['expires_at'] },
          { update: { entity: 'customer', id: 'cus_1' }, setIfAbsent: { default_payment_method: 'pm_1' } },
          { remove: { entity: 'routing_rule', id: 'rul_1', owner } },
        ],
      },
      1,
    );
    // Assess
    expect(condition(count!)).toBe('attribute_exists(pk) AND (attribute_not_exists(rule_count) OR rule_count = null OR rule_count < 50)');
    expect(update(count!)).toBe('ADD rule_count 1 REMOVE change');
    expect(condition(attach!)).toBe('attribute_exists(pk) AND (attribute_not_exists(expires_at) OR expires_at = null OR expires_at > 1000)');
    expect(update(setDefault!)).toBe('SET default_payment_method = if_not_exists(default_payment_method, "pm_1") REMOVE change');
    expect(deleted!.Delete!.Key).toEqual(routingRuleKeys.item(owner, 'rul_1'));
    expect(condition(deleted!)).toBe('attribute_exists(pk)');
  });
});
