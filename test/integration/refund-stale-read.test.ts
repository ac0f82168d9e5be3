import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, TABLE } from '../../shared/store/client.ts';
import { paymentKeys } from '../../shared/store/keys.ts';
import { newMerchant } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';

/**
 * The payment as it is now, kept aside: from then on every read of it that may be stale (not strongly consistent)
 * answers this copy, as a DynamoDB replica that has not seen the later writes would.
 */
async function staleFrom(paymentId: string): Promise<() => void> {
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
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...now, ...aside } }));
  const name = `stale-${paymentId}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: { pk?: unknown }; ConsistentRead?: boolean };
      if (context.commandName === 'GetItemCommand' && input.Key?.pk === key.pk && !input.ConsistentRead) args.input = { ...input, Key: aside };
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db.middlewareStack.remove(name);
}

describe('a refund whose first read of the payment is stale', () => {
  it('is judged again on a consistent read when the stale payment is not yet captured', async () => {
    // Prepare: the stale read sees the payment authorized; it has been captured since
    const { apiKey } = await newMerchant();
    const id = (await payments.create(apiKey, paymentBody({ amount: 1000 }))).body.id;
    const fresh = await staleFrom(id);
    expect((await payments.capture(apiKey, id)).status).toBe(200);
    // Act
    const refund = await payments.refund(apiKey, id).finally(fresh);
    // Assess
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ id, status: 'refunded', amount: 1000, amount_refunded: 1000 });
  });

  it('refunds what is left, not what the stale payment shows, when the refund names no amount', async () => {
    // Prepare: the stale read sees nothing refunded; 300 has been since
    const { apiKey } = await newMerchant();
    const id = (await payments.create(apiKey, paymentBody({ amount: 1000 }))).body.id;
    expect((await payments.capture(apiKey, id)).status).toBe(200);
    const fresh = await staleFrom(id);
    expect((await payments.refund(apiKey, id, { amount: 300 })).status).toBe(200);
    // Act
    const refund = await payments.refund(apiKey, id).finally(fresh);
    const after = await payments.get(apiKey, id);
    // Assess
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ amount: 700, amount_refunded: 1000, status: 'refunded' });
    expect(after.body).toMatchObject({ status: 'refunded', amount_refunded: 1000 });
  });
});
