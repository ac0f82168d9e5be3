import { encodeTime } from 'ulid';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredCard } from '../domain/cards.ts';
import type { AppliedStrategy } from '../domain/routing.ts';
import type { ProviderName } from '../providers/types.ts';
import { db, TABLE } from './client.ts';
import type { Operation, Target } from './commit.ts';
import { equalityFilter } from './expressions.ts';
import type { StoredInvoice } from './invoices.ts';
import { LEASE_SHARDS, leaseKeys, paymentKeys } from './keys.ts';
import { countItems, type ListSpec, listPage, merchantList, type Page, type PageQuery } from './pagination.ts';

export type PaymentStatus = 'succeeded' | 'captured' | 'voided' | 'refunded' | 'failed';

export interface RoutingDecision {
  /** how the provider was chosen; `card_on_file` for a charge of a customer's saved card (renewals) */
  strategy: AppliedStrategy | 'card_on_file';
  reason: string;
  alternatives_considered: ProviderName[];
  latency_ms: number;
}

export interface PaymentRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  status: PaymentStatus;
  amount: number;
  currency: string;
  amount_captured: number;
  amount_refunded: number;
  provider: ProviderName | null;
  provider_reference: string | null;
  /** the provider's reusable card-on-file token (never card data) */
  provider_token: string | null;
  card: StoredCard;
  customer: { email?: string; name?: string; phone?: string } | null;
  customer_email: string | null;
  customer_id: string | null;
  description: string | null;
  metadata: Record<string, string>;
  routing_decision: RoutingDecision | null;
  risk_score: number;
  decline_code: string | null;
  created_at: string;
  updated_at: string;
}

export interface RefundRecord {
  id: string;
  payment_id: string;
  status: 'pending' | 'succeeded';
  merchant_id?: string;
  currency?: string;
  amount: number;
  reason: string | null;
  provider_reference: string | null;
  created_at: string;
}

/** The payment as stored: a `processing` one (its authorization running) is not shown by the API. */
export type StoredPayment = Omit<PaymentRecord, 'status'> & {
  status: PaymentRecord['status'] | 'processing';
  /** the external operation in flight on the payment (see store/commit.ts) */
  op?: Operation;
  /** the last operation committed on the payment: a retried request that finds its own here replays */
  last_operation?: string;
};

export type StoredRefund = RefundRecord & { op?: Operation };

export const paymentTarget = (p: Pick<PaymentRecord, 'id' | 'merchant_id'>): Target => ({ entity: 'payment', id: p.id, merchantId: p.merchant_id });
export const refundTarget = (r: Pick<RefundRecord, 'id' | 'payment_id'>): Target => ({ entity: 'refund', id: r.id, paymentId: r.payment_id });

/** The merchant's payment, whatever its state (processing included), or undefined when missing or another merchant's. */
export async function getStoredPayment(merchantId: string, paymentId: string): Promise<StoredPayment | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.item(paymentId), ConsistentRead: true }));
  const item = out.Item ? strip(out.Item) as unknown as StoredPayment : undefined;
  return item?.merchant_id === merchantId ? item : undefined;
}

/** The merchant's payment as the API shows it, or undefined when missing, processing or another merchant's. */
export async function getPayment(merchantId: string, paymentId: string): Promise<PaymentRecord | undefined> {
  const stored = await getStoredPayment(merchantId, paymentId);
  return stored && stored.status !== 'processing' ? (stored as PaymentRecord) : undefined;
}

export async function getRefund(paymentId: string, refundId: string): Promise<StoredRefund | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.refund(paymentId, refundId), ConsistentRead: true }));
  return out.Item ? (strip(out.Item) as unknown as StoredRefund) : undefined;
}

/** An item of the lease index whose operation's lease ended: the reconciler's work list. */
export type Leased =
  | { entity: 'payment'; payment: StoredPayment & { op: Operation } }
  | { entity: 'refund'; refund: StoredRefund & { op: Operation } }
  | { entity: 'invoice'; invoice: StoredInvoice & { op: Operation } };

/** Items whose operation's lease ended before `now` (every lease shard, oldest first, at most `limit` per shard). */
export async function expiredOperations(now: number, limit = 50): Promise<Leased[]> {
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
    if (item.type === 'payment') return [{ entity: 'payment', payment: strip(item) as unknown as StoredPayment & { op: Operation } }];
    if (item.type === 'refund') return [{ entity: 'refund', refund: strip(item) as unknown as StoredRefund & { op: Operation } }];
    if (item.type === 'invoice') return [{ entity: 'invoice', invoice: strip(item) as unknown as StoredInvoice & { op: Operation } }];
    return [];
  });
}

/** The record without table keys. */
function strip(item: Record<string, unknown>): Record<string, unknown> {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g1s, gsi2pk: _g2, gsi2sk: _g2s, type: _type, ...record } = item;
  return record;
}

export interface PaymentFilters {
  status?: PaymentStatus;
  currency?: string;
  provider?: ProviderName;
  customer_email?: string;
  created_gte?: number;
  created_lte?: number;
}

/** The merchant's payments by id (ULIDs sort by time, so a created range is a key range) and attribute filters. */
function listSpec(merchantId: string, filters: PaymentFilters): ListSpec {
  const { created_gte, created_lte, ...attributes } = filters;
  const spec = merchantList(paymentKeys, merchantId, equalityFilter({ ...attributes }));
  return {
    ...spec,
    sortKey: {
      ...spec.sortKey,
      from: created_gte === undefined ? undefined : `pay_${encodeTime(created_gte, 10).toLowerCase()}`,
      to: created_lte === undefined ? undefined : `pay_${encodeTime(created_lte, 10).toLowerCase()}~`,
    },
  };
}

export async function listPayments(merchantId: string, filters: PaymentFilters, page: PageQuery): Promise<Page<PaymentRecord> & { total: number }> {
  const spec = listSpec(merchantId, filters);
  const [result, total] = await Promise.all([listPage<PaymentRecord>(spec, page), countItems(spec)]);
  return { ...result, total };
}
