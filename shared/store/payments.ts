import { encodeTime } from 'ulid';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredCard } from '../domain/cards.ts';
import type { ProviderName } from '../providers/types.ts';
import { db, isConditionFailure, TABLE } from './client.ts';
import { paymentKeys } from './keys.ts';
import { countItems, type ListSpec, listPage, type Page, type PageQuery } from './pagination.ts';

export type PaymentStatus = 'succeeded' | 'captured' | 'voided' | 'refunded' | 'failed';

export interface RoutingDecision {
  strategy: string;
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
  amount: number;
  reason: string | null;
  provider_reference: string | null;
  created_at: string;
}

export async function putPayment(payment: PaymentRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...paymentKeys.item(payment.id), ...paymentKeys.list(payment.merchant_id, payment.id), type: 'payment', ...payment },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** The merchant's payment, or undefined when missing or another merchant's. */
export async function getPayment(merchantId: string, paymentId: string): Promise<PaymentRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.item(paymentId), ConsistentRead: true }));
  const item = out.Item as PaymentRecord | undefined;
  return item?.merchant_id === merchantId ? item : undefined;
}

/**
 * Moves a payment from one of `from` to a new state with its changes, atomically; undefined when the payment is
 * no longer in one of those states (a concurrent move won).
 */
export async function transitionPayment(
  payment: PaymentRecord,
  from: readonly PaymentStatus[],
  changes: Partial<PaymentRecord>,
): Promise<PaymentRecord | undefined> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {};
  from.forEach((s, i) => (values[`:from${i}`] = s));
  const sets = Object.entries(changes).map(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: paymentKeys.item(payment.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as PaymentRecord;
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
}

/**
 * Records a refund and adds it to the payment in one transaction. The condition keeps the refunded sum within the
 * captured amount however many refunds race: `amount_refunded <= captured - amount` before adding `amount`.
 */
export async function addRefund(payment: PaymentRecord, refund: RefundRecord, now: string): Promise<PaymentRecord | undefined> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: TABLE,
              Key: paymentKeys.item(payment.id),
              UpdateExpression: 'ADD amount_refunded :amount SET #status = :refunded, updated_at = :now',
              ConditionExpression: '#status IN (:captured, :refunded) AND amount_refunded <= :limit',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':amount': refund.amount,
                ':refunded': 'refunded',
                ':captured': 'captured',
                ':limit': payment.amount_captured - refund.amount,
                ':now': now,
              },
            },
          },
          {
            Put: {
              TableName: TABLE,
              Item: { ...paymentKeys.refund(payment.id, refund.id), type: 'refund', ...refund },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
  return { ...payment, amount_refunded: payment.amount_refunded + refund.amount, status: 'refunded', updated_at: now };
}

/** Takes a refund back out when the provider could not carry it out; with none left the payment is captured again. */
export async function cancelRefund(payment: PaymentRecord, refund: RefundRecord): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: TABLE,
            Key: paymentKeys.item(payment.id),
            UpdateExpression: 'ADD amount_refunded :minus',
            ExpressionAttributeValues: { ':minus': -refund.amount },
          },
        },
        { Delete: { TableName: TABLE, Key: paymentKeys.refund(payment.id, refund.id) } },
      ],
    }),
  );
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: paymentKeys.item(payment.id),
        UpdateExpression: 'SET #status = :captured',
        ConditionExpression: '#status = :refunded AND amount_refunded = :zero',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':captured': 'captured', ':refunded': 'refunded', ':zero': 0 },
      }),
    );
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
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
function listSpec(merchantId: string, filters: PaymentFilters): Omit<ListSpec, 'cursorKey'> {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const field of ['status', 'currency', 'provider', 'customer_email'] as const) {
    const value = filters[field];
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    clauses.push(`#${field} = :${field}`);
  }
  return {
    index: 'gsi1',
    partition: { name: 'gsi1pk', value: paymentKeys.listPartition(merchantId) },
    sortKey: {
      name: 'gsi1sk',
      from: filters.created_gte === undefined ? undefined : `pay_${encodeTime(filters.created_gte, 10).toLowerCase()}`,
      to: filters.created_lte === undefined ? undefined : `pay_${encodeTime(filters.created_lte, 10).toLowerCase()}~`,
    },
    filter: clauses.length
      ? { FilterExpression: clauses.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values }
      : undefined,
  };
}

export async function listPayments(merchantId: string, filters: PaymentFilters, page: PageQuery): Promise<Page<PaymentRecord> & { total: number }> {
  const spec = listSpec(merchantId, filters);
  const [result, total] = await Promise.all([
    listPage<PaymentRecord>({ ...spec, cursorKey: (id) => ({ ...paymentKeys.item(id), ...paymentKeys.list(merchantId, id) }) }, page),
    countItems(spec),
  ]);
  return { ...result, total };
}
