import { encodeTime } from 'ulid';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DomainEvent } from '../domain/events.ts';
import type { StoredCard } from '../domain/cards.ts';
import type { AppliedStrategy } from '../domain/routing.ts';
import type { ProviderName } from '../providers/types.ts';
import { assignments, equalityFilter } from './expressions.ts';
import { db, isConditionFailure, isTransactionConflict, TABLE, type TransactItem } from './client.ts';
import { eventPut } from './events.ts';
import { paymentKeys } from './keys.ts';
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
  amount: number;
  reason: string | null;
  provider_reference: string | null;
  created_at: string;
}

/** Stores a new payment and the event that reports it, in one transaction (the outbox). */
export async function putPayment(payment: PaymentRecord, event: DomainEvent, alongside: TransactItem[] = []): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: { ...paymentKeys.item(payment.id), ...paymentKeys.list(payment.merchant_id, payment.id), type: 'payment', ...payment },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        eventPut(event),
        ...alongside,
      ],
    }),
  );
}

/** The merchant's payment, or undefined when missing or another merchant's. */
export async function getPayment(merchantId: string, paymentId: string): Promise<PaymentRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.item(paymentId), ConsistentRead: true }));
  const item = out.Item as PaymentRecord | undefined;
  return item?.merchant_id === merchantId ? item : undefined;
}

export type PaymentOperation = 'capture' | 'void';

/**
 * Claims a move of the payment (capture or void) while the provider is asked: only from one of `from`, and only if
 * no other move holds the payment (an abandoned claim expires after `lockMs`). False when another move won.
 */
export async function lockPayment(
  payment: PaymentRecord,
  operation: PaymentOperation,
  from: readonly PaymentStatus[],
  now: number,
  lockMs: number,
): Promise<boolean> {
  const values: Record<string, unknown> = { ':op': operation, ':until': now + lockMs, ':now': now };
  from.forEach((status, i) => (values[`:from${i}`] = status));
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: paymentKeys.item(payment.id),
        UpdateExpression: 'SET pending_operation = :op, pending_until = :until',
        ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')}) AND (attribute_not_exists(pending_operation) OR pending_until < :now)`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/** Releases a claim after the provider refused the move; the payment stays as it was. */
export async function unlockPayment(payment: PaymentRecord, operation: PaymentOperation): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: paymentKeys.item(payment.id),
        UpdateExpression: 'REMOVE pending_operation, pending_until',
        ConditionExpression: 'pending_operation = :op',
        ExpressionAttributeValues: { ':op': operation },
      }),
    );
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}

/** Applies a claimed move and writes its event, in one transaction; the claim must still be this move's. */
export async function completePayment(
  payment: PaymentRecord,
  operation: PaymentOperation,
  changes: Partial<PaymentRecord>,
  event: (updated: PaymentRecord) => DomainEvent,
  alongside: TransactItem[] = [],
): Promise<PaymentRecord> {
  const updated: PaymentRecord = { ...payment, ...changes };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':op': operation };
  const sets = assignments(Object.entries(changes), names, values);
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: TABLE,
            Key: paymentKeys.item(payment.id),
            UpdateExpression: `SET ${sets.join(', ')} REMOVE pending_operation, pending_until`,
            ConditionExpression: 'pending_operation = :op',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
        eventPut(event(updated)),
        ...alongside,
      ],
    }),
  );
  return updated;
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
  // Read back what was committed: concurrent refunds may have been reserved meanwhile, and `amount_refunded` is
  // the payment's sum, not this request's view of it.
  return getPayment(payment.merchant_id, payment.id);
}

/**
 * Marks a reserved refund as carried out by the provider and writes its event and counters, in one transaction.
 * False when a counter's condition failed or another transaction held one of the items (a concurrent balance
 * change): plan the counters again and retry.
 */
export async function confirmRefund(refund: RefundRecord, providerReference: string, event: DomainEvent, alongside: TransactItem[]): Promise<boolean> {
  try {
    await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: TABLE,
            Key: paymentKeys.refund(refund.payment_id, refund.id),
            UpdateExpression: 'SET #status = :succeeded, provider_reference = :reference',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':succeeded': 'succeeded', ':reference': providerReference },
          },
        },
        eventPut(event),
        ...alongside,
      ],
    }),
  );
  } catch (e) {
    if (isConditionFailure(e) || isTransactionConflict(e)) return false;
    throw e;
  }
  return true;
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
