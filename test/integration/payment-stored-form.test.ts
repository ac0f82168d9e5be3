import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as timeline } from '../../functions/payments/timeline.ts';
import { itemBytes } from '../../bench/model.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { paymentKeys } from '../../shared/store/keys.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

/**
 * A payment is stored in a smaller form than its record (store/stored-form.ts): its routing decision, attempts, card,
 * metadata and history entries packed, its null fields left out.
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
    // the card's last 4 digits beside it, for the list's filter; the record read back has no such field
    expect(item.card_last4).toBe(created.body.payment_method.card.last4);
    expect(created.body).not.toHaveProperty('card_last4');
    expect(item).not.toHaveProperty('decline_code');
    expect(item).not.toHaveProperty('connector_id');
    const read = await payments.get(apiKey, created.body.id);
    expect(read.body).toEqual(created.body);
    expect(read.body).toMatchObject({ decline_code: null, connector_id: null, metadata: { order_id: 'ord_8812734' } });
    expect(await changesOf(apiKey, created.body.id)).toEqual(['payment.created', 'attempt.authorized', 'payment.succeeded']);
  });
});
