import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { clock } from '../../shared/model/clock.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { paymentMethodKeys } from '../../shared/store/keys.ts';
import { moveClock, resetClock } from '../support/faults.ts';
import { newMerchant } from '../support/merchant.ts';
import { cardBody, paymentMethods, publishableKeyOf } from '../support/payment-methods.ts';
import { CARDS, freshCard, payments } from '../support/payments.ts';

/*
 * A payment method a publishable key made (anyone's browser can make them) that nobody attaches nor charges is
 * deleted a day after it was saved, with its card in the vault: a TTL on both, and read as absent from then on,
 * before DynamoDB deletes it. Time moves with the clock the service reads (shared/model/clock.ts).
 */

const DAY_S = 24 * 60 * 60;
const HOUR_MS = 60 * 60_000;

afterEach(() => resetClock());

/** The expiry (epoch seconds) of the payment method's item and of its card in the vault, as DynamoDB holds them. */
async function expiriesOf(merchantId: string, pmId: string) {
  const item = await db.send(
    new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': paymentMethodKeys.item(pmId).pk } }),
  );
  const vault = await db.send(
    new QueryCommand({
      TableName: config.VAULT_TABLE!,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `CARD#${merchantId}:test#${pmId}` },
    }),
  );
  const card = (vault.Items ?? []).find((i) => i.sk === 'CARD');
  expect(item.Items).toHaveLength(1);
  expect(card).toBeDefined();
  return { paymentMethod: item.Items![0]!.expires_at as number | undefined, vaultCard: card!.expires_at as number | undefined };
}

const charge = (key: string, pm: string) => payments.create(key, { amount: 1500, currency: 'usd', routing: 'stripe', payment_method: pm });

describe("a publishable key's payment method never attached nor charged", () => {
  it('expires a day after it was saved, with its vault card; a secret key’s does not', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const savedAt = Math.floor(clock.now() / 1000);

    // Act
    const fromBrowser = await paymentMethods.create(await publishableKeyOf(apiKey), cardBody(freshCard()));
    const fromServer = await paymentMethods.create(apiKey, cardBody(freshCard()));

    // Assess: both items expire together, about a day from now
    expect([fromBrowser.status, fromServer.status]).toEqual([200, 200]);
    const browsers = await expiriesOf(merchantId, fromBrowser.body.id);
    expect(browsers.paymentMethod).toBeGreaterThanOrEqual(savedAt + DAY_S - 5);
    expect(browsers.paymentMethod).toBeLessThanOrEqual(savedAt + DAY_S + 5);
    expect(browsers.vaultCard).toBe(browsers.paymentMethod);
    expect(await expiriesOf(merchantId, fromServer.body.id)).toEqual({ paymentMethod: undefined, vaultCard: undefined });
  });

  it('reads as absent once its day has passed, before DynamoDB deletes it: 404, not chargeable, not attachable', async () => {
    // Prepare: a card saved from the browser, still there a minute before its day ends
    const { apiKey, customerId } = await newMerchant();
    const pm = (await paymentMethods.create(await publishableKeyOf(apiKey), cardBody(freshCard()))).body;
    moveClock(24 * HOUR_MS - 60_000);
    const before = await paymentMethods.get(apiKey, pm.id);

    // Act: a minute after
    moveClock(2 * 60_000);
    const read = await paymentMethods.get(apiKey, pm.id);
    const charged = await charge(apiKey, pm.id);
    const attached = await paymentMethods.attach(apiKey, pm.id, customerId);

    // Assess
    expect(before.status).toBe(200);
    expect(read.status).toBe(404);
    expect(charged.status).toBe(400);
    expect(charged.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
    expect(attached.status).toBe(404);
  });
});

describe("a publishable key's payment method attached or charged", () => {
  it('is kept once attached: no expiry on it nor on its vault card, and still there, chargeable, days later', async () => {
    // Prepare
    const { apiKey, merchantId, customerId } = await newMerchant();
    const pm = (await paymentMethods.create(await publishableKeyOf(apiKey), cardBody(freshCard()))).body;

    // Act
    const attached = await paymentMethods.attach(apiKey, pm.id, customerId);
    moveClock(3 * 24 * HOUR_MS);
    const read = await paymentMethods.get(apiKey, pm.id);
    const charged = await charge(apiKey, pm.id);

    // Assess
    expect(attached.status, attached.rawBody).toBe(200);
    expect(await expiriesOf(merchantId, pm.id)).toEqual({ paymentMethod: undefined, vaultCard: undefined });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(attached.body);
    expect(charged.status, charged.rawBody).toBe(200);
    expect(charged.body).toMatchObject({ status: 'succeeded', customer_id: customerId });
  });

  it.each([
    ['approved', freshCard(), 200],
    ['declined', CARDS.genericDecline, 402],
  ])('is kept from its first payment on (%s): still there, and chargeable, days later', async (_, number, status) => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const pm = (await paymentMethods.create(await publishableKeyOf(apiKey), cardBody(number))).body;

    // Act
    const first = await charge(apiKey, pm.id);
    moveClock(3 * 24 * HOUR_MS);
    const read = await paymentMethods.get(apiKey, pm.id);
    const again = await charge(apiKey, pm.id);

    // Assess: the payment names it, so it stays
    expect(first.status, first.rawBody).toBe(status);
    expect(await expiriesOf(merchantId, pm.id)).toEqual({ paymentMethod: undefined, vaultCard: undefined });
    expect(read.status).toBe(200);
    expect(again.status, again.rawBody).toBe(status);
  });
});
