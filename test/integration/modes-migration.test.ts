import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as getConnector } from '../../functions/connectors/get.ts';
import { handler as listConnectors } from '../../functions/connectors/list.ts';
import { handler as listPayments } from '../../functions/payments/list.ts';
import { newId } from '../../shared/domain/ids.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { connectorKeys, merchantKeys, paymentKeys } from '../../shared/store/keys.ts';
import { migrateModes } from '../../shared/store/migrations/modes.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

/**
 * Data written before test and live were separated: one partition per merchant held both modes. `npm run
 * migrate:modes` moves the test items that recorded their mode into the test partitions; a second run moves nothing.
 */
describe('npm run migrate:modes', () => {
  it('moves test payments and connectors written before the separation into test mode, once', async () => {
    // Prepare: a test payment and a test connector as the old code stored them, in the merchant's live partition
    const { apiKey, merchantId } = await newMerchant();
    const live = { merchant_id: merchantId, livemode: true };
    const paid = await payments.create(apiKey, paymentBody());
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: paymentKeys.item(paid.body.id),
        UpdateExpression: 'SET gsi1pk = :old',
        ExpressionAttributeValues: { ':old': paymentKeys.listPartition(live) },
      }),
    );
    const connectorId = newId('connector');
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          ...connectorKeys.item(live, connectorId),
          type: 'connector',
          id: connectorId,
          merchant_id: merchantId,
          provider: 'stripe',
          mode: 'test',
          label: 'old',
          status: 'active',
          credentials_sealed: 'v1.sealed',
          credentials_hint: 'sk_test_…abcd',
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        },
      }),
    );
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: merchantKeys.profile(merchantId),
        UpdateExpression: 'SET connector_count = :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const listed = async () =>
      (await invokeHttp(listPayments, apiEvent({ method: 'GET', path: '/api/payments/list', headers: bearer(apiKey) }))).body.data;
    expect(await listed()).toEqual([]);
    // Act
    const first = await migrateModes();
    const second = await migrateModes();
    // Assess: the test key finds both; the cap counts the connector in test mode
    expect(first.listed).toBeGreaterThanOrEqual(1);
    expect(first.connectors).toBeGreaterThanOrEqual(1);
    expect(await listed()).toEqual([expect.objectContaining({ id: paid.body.id, livemode: false })]);
    const connectors = await invokeHttp(listConnectors, apiEvent({ method: 'GET', path: '/api/connectors', headers: bearer(apiKey) }));
    expect(connectors.body.data.map((c: { id: string }) => c.id)).toEqual([connectorId]);
    expect(
      (await invokeHttp(getConnector, apiEvent({ method: 'GET', path: `/api/connectors/${connectorId}`, headers: bearer(apiKey) }))).status,
    ).toBe(200);
    const profile = (await db.send(new GetCommand({ TableName: TABLE, Key: merchantKeys.profile(merchantId) }))).Item;
    expect(profile).toMatchObject({ connector_count: 0, test_connector_count: 1 });
    // the second run found this merchant's items moved already (other files' old items may still be moving)
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: connectorKeys.item(live, connectorId) }))).Item).toBeUndefined();
    expect(second.connectors).toBe(0);
  });
});
