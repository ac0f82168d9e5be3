import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db, TABLE } from '../../shared/store/client.ts';
import { paymentKeys } from '../../shared/store/keys.ts';
import { newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

const stale = { served: 0, name: '' };
afterEach(() => {
  db.middlewareStack.remove(stale.name);
});

/**
 * The payment as it is now (with `changes`, as it was at some earlier moment), kept aside: from then on every read
 * of it that may be stale (not strongly consistent) answers this copy, as a DynamoDB replica behind the later writes
 * would; `stale.served` counts them.
 */
async function staleFrom(paymentId: string, changes: Record<string, unknown> = {}): Promise<void> {
  const key = paymentKeys.item(paymentId);
  const {
    gsi1pk: _list,
    gsi1sk: _listed,
    gsi2pk: _lease,
    gsi2sk: _leased,
    ...now
  } = (await db.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item!;
  const aside = { pk: `STALE#${paymentId}`, sk: key.sk };
  // out of every index, so nothing lists it
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...now, ...changes, ...aside } }));
  stale.served = 0;
  stale.name = `stale-${paymentId}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: { pk?: unknown }; ConsistentRead?: boolean };
      if (context.commandName === 'GetItemCommand' && input.Key?.pk === key.pk && !input.ConsistentRead) {
        stale.served++;
        args.input = { ...input, Key: aside };
      }
      return next(args);
    },
    { step: 'initialize', name: stale.name },
  );
}

async function captured(amount: number, capture = amount) {
  const { apiKey } = await newMerchant();
  const id = (await payments.create(apiKey, paymentBody({ amount }))).body.id as string;
  expect((await payments.capture(apiKey, id, { amount: capture })).status).toBe(200);
  return { apiKey, id };
}

describe('a refund whose first read of the payment is stale', () => {
  it('is judged again on a consistent read when the stale payment is not yet captured', async () => {
    // Prepare: the stale read sees the payment authorized; it has been captured since
    const { apiKey } = await newMerchant();
    const id = (await payments.create(apiKey, paymentBody({ amount: 1000 }))).body.id;
    await staleFrom(id);
    expect((await payments.capture(apiKey, id)).status).toBe(200);
    // Act
    const refund = await payments.refund(apiKey, id);
    // Assess
    expect(stale.served).toBe(1);
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ id, status: 'refunded', amount: 1000, amount_refunded: 1000 });
  });

  it('refunds what is left, not what the stale payment shows, when it shows less refunded than there is', async () => {
    // Prepare: the stale read sees nothing refunded; 300 has been since
    const { apiKey, id } = await captured(1000);
    await staleFrom(id);
    expect((await payments.refund(apiKey, id, { amount: 300 })).status).toBe(200);
    stale.served = 0;
    // Act
    const refund = await payments.refund(apiKey, id);
    // Assess
    expect(stale.served).toBe(1);
    expect(refund.body).toMatchObject({ amount: 700, amount_refunded: 1000, status: 'refunded' });
    expect((await payments.get(apiKey, id)).body).toMatchObject({ status: 'refunded', amount_refunded: 1000 });
  });

  it('refunds all that is left when the stale payment shows more refunded than there is (a refund failed since)', async () => {
    // Prepare: 200 refunded; the stale read sees 500, as before a refund of 300 failed and gave its amount back
    const { apiKey, id } = await captured(1000);
    expect((await payments.refund(apiKey, id, { amount: 200 })).status).toBe(200);
    await staleFrom(id, { amount_refunded: 500 });
    // Act
    const refund = await payments.refund(apiKey, id);
    // Assess
    expect(stale.served).toBe(1);
    expect(refund.body).toMatchObject({ amount: 800, amount_refunded: 1000, status: 'refunded' });
  });

  it('never refunds more than is captured when the stale payment shows more captured than there is', async () => {
    // Prepare: 500 captured of 1,000; the stale read sees all 1,000 captured
    const { apiKey, id } = await captured(1000, 500);
    await staleFrom(id, { amount_captured: 1000 });
    // Act
    const refund = await payments.refund(apiKey, id, { amount: 800 });
    // Assess
    expect(refund.status).toBe(400);
    expect(refund.body.error).toMatchObject({ code: 'amount_too_large', param: 'amount' });
    expect((await payments.get(apiKey, id)).body).toMatchObject({ amount_captured: 500, amount_refunded: 0 });
  });
});
