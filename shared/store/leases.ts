import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Operation } from '../model/targets.ts';
import { db, TABLE } from './client.ts';
import { disputeOf, type StoredDispute } from './disputes.ts';
import { invoiceOf, type StoredInvoice } from './invoices.ts';
import { LEASE_SHARDS, leaseKeys } from './keys.ts';
import { paymentOf, refundOf, type StoredPayment, type StoredRefund } from './payments.ts';

/** An item of the lease index whose operation's lease ended: the reconciler's work list. */
export type Leased =
  | { entity: 'payment'; payment: StoredPayment & { op: Operation } }
  | { entity: 'refund'; refund: StoredRefund & { op: Operation } }
  | { entity: 'invoice'; invoice: StoredInvoice & { op: Operation } }
  | { entity: 'dispute'; dispute: StoredDispute & { op: Operation } };

/**
 * Items whose operation's lease ended before `now` (every lease shard, oldest first, at most `limit` per shard: by
 * default 500 a run over the 20 shards, as with 50 over 10 before).
 */
export async function expiredOperations(now: number, limit = 25): Promise<Leased[]> {
  const shards = await Promise.all(
    Array.from({ length: LEASE_SHARDS }, async (_, shard) => {
      const out = await db.send(
        new QueryCommand({
          TableName: TABLE,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :now',
          ExpressionAttributeValues: { ':pk': leaseKeys.partition(shard), ':now': new Date(now).toISOString() },
          Limit: limit,
        }),
      );
      return out.Items ?? [];
    }),
  );
  return shards.flat().flatMap((item): Leased[] => {
    if (!item.op) return [];
    if (item.type === 'payment') {
      const payment = paymentOf(item);
      return payment.op ? [{ entity: 'payment', payment: { ...payment, op: payment.op } }] : [];
    }
    if (item.type === 'refund') {
      const refund = refundOf(item);
      return refund.op ? [{ entity: 'refund', refund: { ...refund, op: refund.op } }] : [];
    }
    if (item.type === 'dispute') {
      const dispute = disputeOf(item);
      return dispute.op ? [{ entity: 'dispute', dispute: { ...dispute, op: dispute.op } }] : [];
    }
    if (item.type === 'invoice') {
      const invoice = invoiceOf(item);
      return invoice.op ? [{ entity: 'invoice', invoice: { ...invoice, op: invoice.op } }] : [];
    }
    return [];
  });
}
