import { describe, expect, it } from 'vitest';
import { newEvent } from '../../shared/domain/events.ts';
import { PAYMENT } from '../../shared/domain/state-machines.ts';
import { type Operation, type Target, transactionOf } from '../../shared/store/commit.ts';

// What a change becomes, read off the transaction's items with no table behind them.
const owner = { merchant_id: 'mer_unit', livemode: false };
const payment: Target = { entity: 'payment', id: 'pay_unit', owner };
const op: Operation = { id: 'op_unit', kind: 'capture', lease_until: Date.parse('2026-11-27T12:00:00Z'), provider: 'stripe', reference: 'pi_1' };

const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0]!;
};
/** An update's condition and expression with the placeholders replaced by the names and values they stand for. */
function spelled(item: ReturnType<typeof transactionOf>[number]) {
  const update = item.Update!;
  const spell = (text: string) =>
    text.replace(/[#:][nv]\d+/g, (p) =>
      JSON.stringify(p.startsWith('#') ? update.ExpressionAttributeNames![p] : update.ExpressionAttributeValues![p]),
    );
  return { condition: spell(update.ConditionExpression!), update: spell(update.UpdateExpression!) };
}

describe('a change as a transaction', () => {
  it('begins an operation only where none is held, and indexes its lease', () => {
    // Act
    const item = only(transactionOf({ writes: [{ move: payment, inStates: PAYMENT.capture.from, operation: { begin: op } }] }, 1));
    // Assess
    const { condition, update } = spelled(item);
    expect(item.Update!.Key).toEqual({ pk: 'PAY#pay_unit', sk: 'PAY' });
    expect(condition).toBe('attribute_exists(pk) AND "status" IN ("succeeded") AND attribute_not_exists("op")');
    expect(update).toContain(`"op" = ${JSON.stringify(op)}`);
    expect(update).toMatch(/"gsi2pk" = "LEASE#\d+", "gsi2sk" = "2026-11-27T12:00:00.000Z#PAY#pay_unit#PAY"/);
  });

  it('moves the item, finishes its operation, writes the event and the counters in one transaction', () => {
    // Prepare
    const event = newEvent(owner, 'payment.captured', { id: 'pay_unit', object: 'payment' });
    const counter = { Update: { TableName: 't', Key: { pk: 'CNT', sk: 'x' }, UpdateExpression: 'ADD #a :a' } };
    // Act
    const items = transactionOf(
      {
        writes: [{ move: payment, transition: PAYMENT.capture, set: { amount_captured: 500 }, operation: { finish: op.id } }],
        events: [event],
        counters: [counter],
      },
      1,
    );
    // Assess
    expect(items).toHaveLength(3);
    const { condition, update } = spelled(items[0]!);
    expect(condition).toBe('attribute_exists(pk) AND "status" IN ("succeeded") AND "op".id = "op_unit"');
    expect(update).toContain('"status" = "captured"');
    expect(update).toContain('"amount_captured" = 500');
    expect(update).toMatch(/REMOVE .*"op", gsi2pk, gsi2sk/);
    expect(items[1]!.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { type: 'event', event_type: 'payment.captured' } });
    expect(items[2]).toBe(counter);
  });

  it('takes over an operation only once its lease ended, renewing it', () => {
    // Act
    const now = op.lease_until + 1;
    const { condition, update } = spelled(
      only(transactionOf({ writes: [{ move: payment, operation: { takeOver: op.id, now, leaseUntil: now + 70_000 } }] }, 1)),
    );
    // Assess
    expect(condition).toBe(`attribute_exists(pk) AND "op".id = "op_unit" AND "op".lease_until < ${now}`);
    expect(update).toContain(`"op".lease_until = ${now + 70_000}`);
  });

  it('creates an item only where none exists, listed once it is visible', () => {
    // Act
    const processing = only(transactionOf({ writes: [{ create: payment, item: { id: 'pay_unit', status: 'processing' }, operation: op }] }, 1));
    const visible = only(transactionOf({ writes: [{ create: payment, item: { id: 'pay_unit', status: 'failed' } }] }, 1));
    // Assess
    expect(processing.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { pk: 'PAY#pay_unit', op, type: 'payment' } });
    expect(processing.Put!.Item).not.toHaveProperty('gsi1pk');
    expect(visible.Put!.Item).toMatchObject({ gsi1pk: 'MER#mer_unit:test#PAY', gsi1sk: 'pay_unit' });
  });

  it('removes an item only while the operation that found it empty holds it', () => {
    // Act
    const item = only(transactionOf({ writes: [{ remove: payment, operation: op.id, inStates: ['processing'] }] }, 1));
    // Assess
    expect(item.Delete).toMatchObject({
      Key: { pk: 'PAY#pay_unit', sk: 'PAY' },
      ConditionExpression: '#op.id = :op AND #status IN (:s0)',
      ExpressionAttributeValues: { ':op': 'op_unit', ':s0': 'processing' },
    });
  });
});
