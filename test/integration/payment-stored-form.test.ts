import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as timeline } from '../../functions/payments/timeline.ts';
import { itemBytes } from '../../bench/model.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { paymentKeys } from '../../shared/store/keys.ts';
import { unpackFields } from '../../shared/store/stored-form.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

/**
 * A payment is stored in a smaller form than its record (store/stored-form.ts): its routing decision, attempts, card,
 * metadata and history entries packed, its null fields left out. The API answers the same either way, and payments
 * stored before, in full, keep reading and changing.
 */
const storedItem = async (id: string) => (await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.item(id), ConsistentRead: true }))).Item!;
const changesOf = async (key: string, id: string) =>
  (await invokeHttp(timeline, apiEvent({ method: 'GET', path: `/api/payments/${id}/timeline`, headers: bearer(key) }))).body.data.map(
    (e: { change: string }) => e.change,
  );

describe("a payment's stored form", () => {
  it('fits one write unit as its create commits it, with a description and metadata, and reads back as created', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const created = await payments.create(apiKey, paymentBody({ description: 'Order #10234', metadata: { order_id: 'ord_8812734' } }));
    // Assess
    expect(created.status).toBe(200);
    const item = await storedItem(created.body.id);
    expect(itemBytes(marshall(item, { removeUndefinedValues: true }))).toBeLessThanOrEqual(1024);
    for (const packed of ['routing_decision', 'attempts', 'card', 'metadata']) expect(item[packed], packed).toBeInstanceOf(Uint8Array);
    expect(item.history[0]).toBeInstanceOf(Uint8Array);
    expect(item).not.toHaveProperty('decline_code');
    expect(item).not.toHaveProperty('connector_id');
    const read = await payments.get(apiKey, created.body.id);
    expect(read.body).toEqual(created.body);
    expect(read.body).toMatchObject({ decline_code: null, connector_id: null, metadata: { order_id: 'ord_8812734' } });
    expect(await changesOf(apiKey, created.body.id)).toEqual(['payment.created', 'attempt.authorized', 'payment.succeeded']);
  });

  it('of a payment stored before, in full, is read, captured, refunded and listed as before', async () => {
    // Prepare: a payment rewritten as the table held it before: every field as it is, nulls stored
    const { apiKey } = await newMerchant();
    const created = await payments.create(apiKey, paymentBody({ metadata: { order_id: 'ord_1' } }));
    const full = unpackFields('payment', await storedItem(created.body.id));
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...full, decline_code: null, connector_id: null, description: null } }));
    expect(await storedItem(created.body.id)).toMatchObject({ card: { last4: expect.any(String) }, history: [{ change: 'payment.succeeded' }] });
    // Act
    const captured = await payments.capture(apiKey, created.body.id);
    const refunded = await payments.refund(apiKey, created.body.id, { amount: 500 });
    // Assess
    expect(captured.status).toBe(200);
    expect(refunded.status).toBe(200);
    const read = await payments.get(apiKey, created.body.id);
    expect(read.body).toEqual({ ...created.body, status: 'refunded', amount_captured: 2500, amount_refunded: 500 });
    expect(await changesOf(apiKey, created.body.id)).toEqual(expect.arrayContaining(['payment.succeeded', 'payment.captured', 'refund.created']));
    const listed = await payments.list(apiKey);
    expect(listed.body.data).toEqual([read.body]);
  });
});
