import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, TABLE } from './client.ts';
import type { Create } from './commit.ts';
import { inboundKeys } from './keys.ts';

/** How long a provider event id is remembered: longer than any provider retries a notification (Adyen: 30 days). */
const SEEN_FOR_SECONDS = 45 * 24 * 3600;

/** The payment a connector account's reference names, or undefined (not one of ours). */
export async function paymentIdByReference(connectorId: string, reference: string): Promise<{ paymentId: string; merchantId: string } | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: inboundKeys.paymentByReference(connectorId, reference), ConsistentRead: true }));
  const item = out.Item;
  return item && typeof item.payment_id === 'string' && typeof item.merchant_id === 'string'
    ? { paymentId: item.payment_id, merchantId: item.merchant_id }
    : undefined;
}

/** The write that makes a provider's reference name our payment (with the authorization's commit). */
export const paymentReferenceWrite = (connectorId: string, reference: string, payment: { id: string; merchant_id: string }): Create => ({
  create: { entity: 'payment_reference', connectorId, reference },
  item: { payment_id: payment.id, merchant_id: payment.merchant_id },
});

/** The write that marks a notification applied, with its change: a second delivery of it is refused by the commit. */
export const seenWrite = (connectorId: string, eventId: string, nowMs: number): Create => ({
  create: { entity: 'inbound', connectorId, eventId },
  item: { expires_at: Math.floor(nowMs / 1000) + SEEN_FOR_SECONDS },
});
