import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { DisputeState } from '../model/state-machines.ts';
import { DISPUTE_REASONS, type DisputeReason } from '../providers/types.ts';
import { db, TABLE } from './client.ts';
import type { Operation, Target } from '../model/targets.ts';
import { HistoryItem, Int, nullable, operationItem, picklistOf, recordReader, Text } from './item-schemas.ts';
import { disputeKeys, ownedBy, paymentKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { type ListSpec, listPage, type Page, type PageQuery } from './pagination.ts';
import { refundOf, type StoredRefund } from './payments.ts';

/** A dispute (chargeback) of a payment, in the payment's partition (keys.ts `disputeKeys`). */
const DisputeItem = v.object({
  id: Text,
  payment_id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  provider: Text,
  connector_id: nullable(Text),
  /** the provider's id of the dispute */
  provider_reference: Text,
  amount: Int,
  currency: Text,
  reason: v.picklist(DISPUTE_REASONS),
  status: picklistOf<DisputeState>()(['needs_response', 'under_review', 'won', 'lost', 'accepted']),
  /** true while its amount is out of the balance (taken when opened, given back when won) */
  debited: v.boolean(),
  evidence_due_by: nullable(Text),
  evidence: v.optional(v.record(v.string(), v.string())),
  created_at: Text,
  updated_at: Text,
  history: v.optional(v.array(HistoryItem)),
  op: v.optional(operationItem(['dispute_evidence', 'dispute_accept'])),
});
export type StoredDispute = Omit<v.InferOutput<typeof DisputeItem>, 'op'> & { reason: DisputeReason; op?: Operation };

export const disputeOf: (item: Record<string, unknown>) => StoredDispute = recordReader('dispute', DisputeItem);

export const disputeTarget = (d: Pick<StoredDispute, 'id' | 'payment_id' | 'merchant_id' | 'livemode' | 'provider_reference'>): Target => ({
  entity: 'dispute',
  id: d.id,
  paymentId: d.payment_id,
  providerReference: d.provider_reference,
  owner: { merchant_id: d.merchant_id, livemode: d.livemode },
});

/** The owner's dispute by id: found through the owner's list, then read by its key (its state now). */
export async function findDispute(owner: Owner, disputeId: string): Promise<StoredDispute | undefined> {
  const listed = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :id',
      ExpressionAttributeValues: { ':pk': disputeKeys.listPartition(owner), ':id': disputeId },
      ProjectionExpression: 'payment_id, provider_reference',
    }),
  );
  const { payment_id: paymentId, provider_reference: reference } = listed.Items?.[0] ?? {};
  if (typeof paymentId !== 'string' || typeof reference !== 'string') return undefined;
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: disputeKeys.item(paymentId, reference), ConsistentRead: true }));
  const dispute = out.Item && disputeOf(out.Item);
  return ownedBy(dispute, owner) ? dispute : undefined;
}

/** A page of the owner's disputes, newest first (gsi1; a cursor needs its dispute's payment, found first). */
export async function disputePage(owner: Owner, page: PageQuery): Promise<Page<StoredDispute>> {
  const cursor = page.starting_after ?? page.ending_before;
  const cursorDispute = cursor ? await findDispute(owner, cursor) : undefined;
  const spec: ListSpec = {
    index: 'gsi1',
    partition: { name: 'gsi1pk', value: disputeKeys.listPartition(owner) },
    sortKey: { name: 'gsi1sk' },
    cursorKey: (id) => ({
      ...disputeKeys.item(cursorDispute?.payment_id ?? '', cursorDispute?.provider_reference ?? ''),
      ...disputeKeys.list(owner, id),
    }),
  };
  const result = await listPage(spec, page);
  return { data: result.data.map(disputeOf), has_more: result.has_more };
}

/** Everything a payment's partition holds besides the payment: its disputes and refunds, read consistently. */
export async function disputesAndRefundsOf(paymentId: string): Promise<{ disputes: StoredDispute[]; refunds: StoredRefund[] }> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': paymentKeys.item(paymentId).pk, ':from': disputeKeys.prefix, ':to': `${paymentKeys.refundPrefix}~` },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return {
    disputes: items.filter((i) => String(i.sk).startsWith(disputeKeys.prefix)).map(disputeOf),
    refunds: items.filter((i) => String(i.sk).startsWith(paymentKeys.refundPrefix)).map(refundOf),
  };
}
