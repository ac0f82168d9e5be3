import { inflateRawSync } from 'node:zlib';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, TABLE } from '../../shared/store/client.ts';
import { getEvent } from '../../shared/store/events.ts';
import { unpackEventData } from '../../shared/store/migrations/event-data.ts';
import { unpack } from '../../shared/store/stored-form.ts';
import { newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

const eventItemsOf = async (objectId: string) =>
  (
    await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `EVT#${objectId}` },
        ConsistentRead: true,
      }),
    )
  ).Items!;

describe('npm run rollback:event-data', () => {
  it('rewrites packed event payloads as the versions before read them (deflated, no dictionary), once, and this version reads them the same', async () => {
    // Prepare: a payment captured, so two events with packed payloads
    const { apiKey, merchantId } = await newMerchant();
    const payment = await payments.create(apiKey, paymentBody());
    await payments.capture(apiKey, payment.body.id);
    const before = await eventItemsOf(payment.body.id);
    expect(before).toHaveLength(2);
    const refs = before.map((item) => ({ event_id: String(item.id), object_id: payment.body.id }));
    const read = await Promise.all(refs.map(getEvent));
    // Act
    const rewritten = await unpackEventData({ merchantIds: [merchantId] });
    const again = await unpackEventData({ merchantIds: [merchantId] });
    // Assess: what the version before reads (inflating data_z) is each payload; this version reads each event as before
    expect([rewritten, again]).toEqual([2, 0]);
    const after = await eventItemsOf(payment.body.id);
    for (const [i, item] of after.entries()) {
      expect(item).not.toHaveProperty('data_p');
      expect(JSON.parse(inflateRawSync(item.data_z as Uint8Array).toString('utf8'))).toEqual(unpack(before[i]!.data_p as Uint8Array));
    }
    expect(await Promise.all(refs.map(getEvent))).toEqual(read);
    expect(read.map((event) => event?.type)).toEqual(expect.arrayContaining(['payment.succeeded', 'payment.captured']));
  });
});
