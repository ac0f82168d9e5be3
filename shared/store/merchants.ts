import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { isoNow } from '../model/clock.ts';
import { newId } from '../model/ids.ts';
import { conditionalWrite, type Created, createOrFind, db, TABLE, type TransactItem } from './client.ts';
import { recordReader, Text } from './item-schemas.ts';
import { type Key, merchantKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';

export interface MerchantRecord {
  id: string;
  email: string;
  created_at: string;
}

/** The merchant's sign-in e-mail item (written with its profile) as the table holds it (see item-schemas.ts). */
const MerchantItem = v.object({ id: Text, email: Text, created_at: Text });
const merchantOf: (item: Record<string, unknown>) => MerchantRecord = recordReader('merchant', MerchantItem);

/** The merchant signed in with this e-mail, created on first sign-in. Two racing first sign-ins get the same one. */
export async function findOrCreateMerchant(email: string): Promise<MerchantRecord> {
  const existing = await findMerchantByEmail(email);
  if (existing) return existing;
  const merchant: MerchantRecord = { id: newId('merchant'), email, created_at: isoNow() };
  const created = await conditionalWrite(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: { ...merchantKeys.profile(merchant.id), type: 'merchant', ...merchant },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: TABLE,
            Item: { ...merchantKeys.byEmail(email), type: 'merchant_email', ...merchant },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
  if (created) return merchant;
  const winner = await findMerchantByEmail(email);
  if (!winner) throw new Error('Merchant sign-up refused, but no merchant has this e-mail');
  return winner;
}

async function findMerchantByEmail(email: string): Promise<MerchantRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: merchantKeys.byEmail(email), ConsistentRead: true }));
  return out.Item && merchantOf(out.Item);
}

/** Caps count per mode: live keeps the count's name (`rule_count`), test counts in `test_rule_count`. */
export const capCountOf = (owner: Owner, count: string) => (owner.livemode ? count : `test_${count}`);

/**
 * Writes a new item the merchant may have at most `max` of (per mode): the item and a count on the merchant's profile
 * (`count`, e.g. `rule_count`) are written in one transaction, the count conditioned on staying below `max`, so
 * parallel creates can never pass the cap. When the item is already there (a retried request's first run wrote it),
 * nothing is written, so the count is not raised twice, and that item is answered (parsed by `read`). Undefined
 * when the cap is reached. A delete lowers the same count in its own transaction. `copies`: what else the item's
 * transaction writes, from the item (its routing copies, routing-copies.ts).
 */
export async function putWithinMerchantCap<T>(
  cap: { owner: Owner; count: string; max: number },
  key: Key,
  type: string,
  record: T,
  read: (item: Record<string, unknown>) => T,
  copies: (item: Record<string, unknown>) => TransactItem[] = () => [],
): Promise<Created<T> | undefined> {
  const { max } = cap;
  const count = capCountOf(cap.owner, cap.count);
  const merchantId = cap.owner.merchant_id;
  const item = { type, ...record };
  const result = await createOrFind(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: TABLE,
            Key: merchantKeys.profile(merchantId),
            UpdateExpression: 'ADD #count :one',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#count) OR #count < :max)',
            ExpressionAttributeNames: { '#count': count },
            ExpressionAttributeValues: { ':one': 1, ':max': max },
          },
        },
        { Put: { TableName: TABLE, Item: { ...item, ...key }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ...copies(item),
      ],
    }),
    key,
  );
  if (result.created) return { created: true, record };
  return result.existing && { created: false, record: read(result.existing) };
}

/**
 * Deletes an item of a capped set and lowers its count on the profile, in one transaction; false when there is none.
 * `copies`: what else goes with the item (its routing copies, routing-copies.ts).
 */
export async function deleteWithinMerchantCap(owner: Owner, countName: string, key: Key, copies: TransactItem[] = []): Promise<boolean> {
  const count = capCountOf(owner, countName);
  const merchantId = owner.merchant_id;
  return conditionalWrite(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: TABLE, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
        ...copies,
        {
          Update: {
            TableName: TABLE,
            Key: merchantKeys.profile(merchantId),
            UpdateExpression: 'ADD #count :minus',
            ExpressionAttributeNames: { '#count': count },
            ExpressionAttributeValues: { ':minus': -1 },
          },
        },
      ],
    }),
  );
}
