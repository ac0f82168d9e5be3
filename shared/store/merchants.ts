import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isoNow } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { db, isConditionFailure, TABLE } from './client.ts';
import { merchantKeys } from './keys.ts';

export interface MerchantRecord {
  id: string;
  email: string;
  created_at: string;
}

/** The merchant signed in with this e-mail, created on first sign-in. Two racing first sign-ins get the same one. */
export async function findOrCreateMerchant(email: string): Promise<MerchantRecord> {
  const existing = await findMerchantByEmail(email);
  if (existing) return existing;
  const merchant: MerchantRecord = { id: newId('merchant'), email, created_at: isoNow() };
  try {
    await db.send(
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
    return merchant;
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
    const winner = await findMerchantByEmail(email);
    if (!winner) throw e;
    return winner;
  }
}

async function findMerchantByEmail(email: string): Promise<MerchantRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: merchantKeys.byEmail(email), ConsistentRead: true }));
  if (!out.Item) return undefined;
  const { id, created_at } = out.Item as MerchantRecord;
  return { id, email, created_at };
}
