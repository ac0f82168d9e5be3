import * as v from 'valibot';
import { encodeTime } from 'ulid';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredCard } from '../model/cards.ts';
import { CARD_BRAND_NAMES } from '../model/card-numbers.ts';
import type { AppliedStrategy } from '../model/routing.ts';
import type { AttemptState, PaymentStatus } from '../model/state-machines.ts';
import { PROVIDERS, type ProviderName, type ShopperAction, type ThreeDSecureResult } from '../providers/types.ts';
import { db, TABLE, type TransactItem } from './client.ts';
import { counterAdd, readCells } from './counters.ts';
import type { Update } from './commit.ts';
import type { Operation, Target } from '../model/targets.ts';
import { equalityFilter } from './expressions.ts';
import {
  type HistoryEntry,
  HistoryItem,
  Int,
  nullable,
  nullOrAbsent,
  operationItem,
  picklistOf,
  recordReader,
  StringMap,
  Text,
} from './item-schemas.ts';
import { ownedBy, paymentCountKeys, paymentKeys, refundKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { unpackFields } from './stored-form.ts';
import { writeShards } from './write-shards.ts';
import { countItems, type ListSpec, listPage, listPageAcross, type Page, type PageQuery, type RangeSpec, shardedList } from './pagination.ts';

export interface RoutingDecision {
  /** how the provider was chosen; `card_on_file` for a charge of a customer's saved card (renewals) */
  strategy: AppliedStrategy | 'card_on_file';
  reason: string;
  alternatives_considered: ProviderName[];
  latency_ms: number;
}

/** An authorization attempt at one provider (docs/api.md "Providers and connector accounts"): written `pending` before the call, finished after. */
export interface PaymentAttempt {
  /** `att_…`: also the provider's idempotency key for this attempt */
  id: string;
  status: AttemptState;
  provider: ProviderName;
  connector_id: string | null;
  decline_code: string | null;
  latency_ms: number | null;
  created_at: string;
  /** why it was made, there (attempt-reasons.ts) */
  reason?: string;
}

export interface PaymentRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  status: Exclude<PaymentStatus, 'processing'>;
  amount: number;
  currency: string;
  amount_captured: number;
  amount_refunded: number;
  provider: ProviderName | null;
  /** the merchant's connector account that holds the authorization; null: the built-in sandbox (test mode) */
  connector_id?: string | null;
  provider_reference: string | null;
  /** the provider's reusable card-on-file token (never card data) */
  provider_token: string | null;
  card: StoredCard;
  /** the saved payment method charged (absent: a card sent with the create) */
  payment_method_id?: string;
  /** 3-D Secure: `required` asks for it even when the issuer does not (stored only then) */
  three_d_secure_mode?: 'required';
  /** where the shopper goes back to after authenticating (stored only when the create gave one) */
  return_url?: string;
  /** while `requires_action`: where this service sends the shopper (ours, signed) and where the provider wants them */
  next_action?: { type: 'redirect_to_url'; redirect_to_url: { url: string; return_url: string } };
  provider_action?: ShopperAction;
  /** the outcome of the shopper's authentication, once there was one */
  three_d_secure?: ThreeDSecureResult;
  customer: { email?: string; name?: string; phone?: string } | null;
  customer_email: string | null;
  customer_id: string | null;
  /** `automatic`: its create captures it once authorized (absent: `manual`, the default; stored only when automatic) */
  capture_method?: 'automatic';
  description: string | null;
  /** the payment link it was made on (stored only then) */
  payment_link_id?: string;
  metadata: Record<string, string>;
  routing_decision: RoutingDecision | null;
  risk_score: number;
  decline_code: string | null;
  /** the authorization attempts, oldest first (none on a payment the risk engine declined) */
  attempts?: PaymentAttempt[];
  /** what happened to the payment after its create, oldest first (its timeline; see domain/timeline.ts) */
  history?: HistoryEntry[];
  created_at: string;
  updated_at: string;
}

/** A payment about to be authorized: what its create knows, every outcome empty (`failed` until it is authorized). */
export const newPaymentRecord = (
  known: Pick<PaymentRecord, 'id' | 'merchant_id' | 'livemode' | 'amount' | 'currency' | 'card' | 'created_at'> & Partial<PaymentRecord>,
): PaymentRecord => ({
  status: 'failed',
  amount_captured: 0,
  amount_refunded: 0,
  provider: null,
  provider_reference: null,
  provider_token: null,
  customer: null,
  customer_email: null,
  customer_id: null,
  description: null,
  metadata: {},
  routing_decision: null,
  risk_score: 0,
  decline_code: null,
  updated_at: known.created_at,
  ...known,
});

export interface RefundRecord {
  id: string;
  payment_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  /** the provider's words when it failed */
  failure_reason?: string | null;
  history?: HistoryEntry[];
  merchant_id: string;
  currency: string;
  livemode: boolean;
  amount: number;
  reason: string | null;
  provider_reference: string | null;
  created_at: string;
  /** not stored when empty (a refund's item stays at its size without metadata); read back as `{}` */
  metadata?: Record<string, string>;
}

/** The payment as stored: a `processing` one (its authorization running) is not shown by the API. */
export type StoredPayment = Omit<PaymentRecord, 'status'> & {
  status: PaymentStatus;
  /** the external operation in flight on the payment (see store/commit.ts) */
  op?: Operation;
  /** the last operation committed on the payment: a retried request that finds its own here replays */
  last_operation?: string;
};

export type StoredRefund = RefundRecord & { op?: Operation };

export const paymentTarget = (p: Pick<PaymentRecord, 'id' | 'merchant_id' | 'livemode'>): Target => ({
  entity: 'payment',
  id: p.id,
  owner: { merchant_id: p.merchant_id, livemode: p.livemode },
});
/**
 * The merchant's change of a payment's `description` and `metadata` for `commit`: the fields only, in any state the
 * API shows (never while `processing`), whatever operation runs on it (none of them writes these fields).
 */
export const paymentDetailsChange = (
  p: Pick<PaymentRecord, 'id' | 'merchant_id' | 'livemode'>,
  changes: Partial<Pick<PaymentRecord, 'description' | 'metadata' | 'updated_at'>>,
): Update => ({
  update: paymentTarget(p),
  inStates: ['succeeded', 'failed', 'captured', 'voided', 'refunded'] satisfies PaymentRecord['status'][],
  set: changes,
});

export const refundTarget = (r: Pick<RefundRecord, 'id' | 'payment_id' | 'merchant_id' | 'livemode'>): Target => ({
  entity: 'refund',
  id: r.id,
  paymentId: r.payment_id,
  owner: { merchant_id: r.merchant_id, livemode: r.livemode },
});

/** Payments and refunds as the table holds them, checked when read back (see item-schemas.ts). */
const PaymentOperationItem = operationItem(['authorize', 'authenticate', 'capture', 'void', 'refund']);
const AttemptItem = v.object({
  id: Text,
  status: picklistOf<AttemptState>()(['pending', 'requires_action', 'authorized', 'declined', 'failed', 'unknown', 'reversed']),
  provider: v.picklist(PROVIDERS),
  connector_id: nullable(Text),
  decline_code: nullable(Text),
  latency_ms: nullable(v.number()),
  created_at: Text,
  reason: v.optional(Text),
});
const PaymentItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  status: picklistOf<PaymentStatus>()(['processing', 'requires_action', 'succeeded', 'captured', 'voided', 'refunded', 'failed']),
  amount: Int,
  currency: Text,
  amount_captured: Int,
  amount_refunded: Int,
  provider: nullOrAbsent(v.picklist(PROVIDERS)),
  connector_id: nullOrAbsent(Text),
  provider_reference: nullOrAbsent(Text),
  provider_token: nullOrAbsent(Text),
  card: v.object({
    brand: v.picklist(CARD_BRAND_NAMES),
    last4: Text,
    bin: Text,
    exp_month: Int,
    exp_year: Int,
    fingerprint: Text,
  }),
  payment_method_id: v.optional(Text),
  three_d_secure_mode: v.optional(v.literal('required')),
  return_url: v.optional(Text),
  next_action: v.optional(v.object({ type: v.literal('redirect_to_url'), redirect_to_url: v.object({ url: Text, return_url: Text }) })),
  provider_action: v.optional(v.object({ url: Text, method: v.picklist(['GET', 'POST']), data: v.optional(StringMap) })),
  three_d_secure: v.optional(
    v.object({
      version: nullable(Text),
      flow: v.picklist(['challenge', 'frictionless']),
      result: v.picklist(['authenticated', 'attempted', 'failed', 'exempted', 'not_supported']),
      eci: nullable(Text),
      liability_shift: v.boolean(),
    }),
  ),
  customer: nullOrAbsent(v.object({ email: v.optional(Text), name: v.optional(Text), phone: v.optional(Text) })),
  customer_email: nullOrAbsent(Text),
  customer_id: nullOrAbsent(Text),
  capture_method: v.optional(v.literal('automatic')),
  description: nullOrAbsent(Text),
  payment_link_id: v.optional(Text),
  metadata: StringMap,
  routing_decision: nullOrAbsent(
    v.object({
      strategy: picklistOf<RoutingDecision['strategy']>()(['smart', 'rules', 'lowest_cost', 'round_robin', 'forced', 'card_on_file']),
      reason: Text,
      alternatives_considered: v.array(v.picklist(PROVIDERS)),
      latency_ms: v.number(),
    }),
  ),
  risk_score: v.number(),
  decline_code: nullOrAbsent(Text),
  created_at: Text,
  updated_at: Text,
  attempts: v.optional(v.array(AttemptItem)),
  history: v.optional(v.array(HistoryItem)),
  op: v.optional(PaymentOperationItem),
  last_operation: v.optional(Text),
});
const RefundItem = v.object({
  id: Text,
  payment_id: Text,
  merchant_id: Text,
  currency: Text,
  livemode: v.boolean(),
  status: picklistOf<RefundRecord['status']>()(['pending', 'succeeded', 'failed']),
  failure_reason: v.optional(nullable(Text)),
  amount: Int,
  reason: nullable(Text),
  provider_reference: nullable(Text),
  created_at: Text,
  metadata: v.optional(StringMap),
  history: v.optional(v.array(HistoryItem)),
  op: v.optional(PaymentOperationItem),
});
/** A listed payment: never `processing` (a payment is listed once its authorization ended, see store/commit.ts). */
const ListedPaymentItem = v.object({
  ...PaymentItem.entries,
  status: picklistOf<PaymentRecord['status']>()(['requires_action', 'succeeded', 'captured', 'voided', 'refunded', 'failed']),
});
const readPayment: (item: Record<string, unknown>) => StoredPayment = recordReader('payment', PaymentItem);
const readListedPayment: (item: Record<string, unknown>) => PaymentRecord = recordReader('payment', ListedPaymentItem);
export const paymentOf = (item: Record<string, unknown>): StoredPayment => readPayment(unpackFields('payment', item));
/** A listed payment is shown without its history (see domain paymentView), so its history entries are not unpacked. */
const listedPaymentOf = ({ history: _history, ...item }: Record<string, unknown>): PaymentRecord => readListedPayment(unpackFields('payment', item));
export const refundOf: (item: Record<string, unknown>) => StoredRefund = recordReader('refund', RefundItem);

/**
 * How a payment is read: `consistent` (every write before it seen), or `eventual` at half the units, for a caller
 * whose write holds only on what it read and which reads again consistently before it turns a request away.
 */
export type PaymentRead = 'consistent' | 'eventual';

/** The owner's payment, whatever its state (processing included), or undefined when missing or another merchant's or mode's. */
export async function getStoredPayment(owner: Owner, paymentId: string, read: PaymentRead = 'consistent'): Promise<StoredPayment | undefined> {
  const item = await loadPayment(paymentId, read);
  return ownedBy(item, owner) ? item : undefined;
}

/** Any merchant's payment by id (workers: the payment of a refund or dispute they hold). */
export async function loadPayment(paymentId: string, read: PaymentRead = 'consistent'): Promise<StoredPayment | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.item(paymentId), ConsistentRead: read === 'consistent' }));
  return out.Item ? paymentOf(out.Item) : undefined;
}

/** The owner's payment as the API shows it, or undefined when missing, processing or another merchant's or mode's. */
export async function getPayment(owner: Owner, paymentId: string): Promise<PaymentRecord | undefined> {
  const stored = await getStoredPayment(owner, paymentId);
  return stored && stored.status !== 'processing' ? { ...stored, status: stored.status } : undefined;
}

export async function getRefund(paymentId: string, refundId: string): Promise<StoredRefund | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.refund(paymentId, refundId), ConsistentRead: true }));
  return out.Item ? refundOf(out.Item) : undefined;
}

/** The owner's refund by id: found through the owner's refund list, then read by its key (its state now). */
export async function findRefund(owner: Owner, refundId: string): Promise<StoredRefund | undefined> {
  const paymentId = await paymentOfRefund(owner, refundId);
  const refund = paymentId ? await getRefund(paymentId, refundId) : undefined;
  return ownedBy(refund, owner) ? refund : undefined;
}

async function paymentOfRefund(owner: Owner, refundId: string): Promise<string | undefined> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :id',
      ExpressionAttributeValues: { ':pk': refundKeys.listPartition(owner), ':id': refundId },
      ProjectionExpression: 'payment_id',
    }),
  );
  const item = out.Items?.[0];
  return item ? String(item.payment_id) : undefined;
}

/**
 * A page of the owner's refunds, newest first: of one payment (its partition, read consistently), or all of them
 * (the merchant's list on gsi1, whose cursor needs the cursor refund's payment: found first).
 */
export async function refundPage(owner: Owner, paymentId: string | undefined, page: PageQuery): Promise<Page<StoredRefund>> {
  if (paymentId) {
    const spec: ListSpec = {
      partition: { name: 'pk', value: paymentKeys.item(paymentId).pk },
      sortKey: { name: 'sk', prefix: paymentKeys.refundPrefix },
      cursorKey: (id) => paymentKeys.refund(paymentId, id),
      consistent: true,
    };
    const result = await listPage(spec, page);
    const data = result.data.map(refundOf).filter((r) => ownedBy(r, owner));
    return { data, has_more: result.has_more && data.length > 0 };
  }
  const cursor = page.starting_after ?? page.ending_before;
  const cursorPayment = cursor ? await paymentOfRefund(owner, cursor) : undefined;
  const spec: ListSpec = {
    index: 'gsi1',
    partition: { name: 'gsi1pk', value: refundKeys.listPartition(owner) },
    sortKey: { name: 'gsi1sk' },
    cursorKey: (id) => ({ ...paymentKeys.refund(cursorPayment ?? '', id), ...refundKeys.list(owner, id) }),
  };
  const result = await listPage(spec, page);
  return { data: result.data.map(refundOf), has_more: result.has_more };
}

export interface PaymentFilters {
  status?: PaymentRecord['status'];
  currency?: string;
  provider?: ProviderName;
  customer_email?: string;
  /** the card's last 4 digits (the item's `card_last4`, store/stored-form.ts) */
  card_last4?: string;
  created_gte?: number;
  created_lte?: number;
}

/**
 * The merchant's payments by id (ULIDs sort by time, so a created range is a key range) and attribute filters: a
 * range in each shard of the list.
 */
async function listRanges(owner: Owner, filters: PaymentFilters): Promise<RangeSpec[]> {
  const { created_gte, created_lte, ...attributes } = filters;
  const from = created_gte === undefined ? undefined : `pay_${encodeTime(created_gte, 10).toLowerCase()}`;
  const to = created_lte === undefined ? undefined : `pay_${encodeTime(created_lte, 10).toLowerCase()}~`;
  const ranges = shardedList(paymentKeys.listPartitions(owner, await writeShards.forRead()), equalityFilter({ ...attributes }));
  return ranges.map((range) => ({ ...range, sortKey: { ...range.sortKey, from, to } }));
}

export async function listPayments(owner: Owner, filters: PaymentFilters, page: PageQuery): Promise<Page<PaymentRecord> & { total: number }> {
  const ranges = await listRanges(owner, filters);
  const [result, total] = await Promise.all([listPageAcross(ranges, page), countPayments(owner, filters, ranges)]);
  return { ...result, data: result.data.map(listedPaymentOf), total };
}

/*
 * Payment counts by status, currency and provider (`PAYN` cells, keys.ts `paymentCountKeys`), written in the
 * transaction of every change of a payment's status: a list's `total` for those filters costs one query per counter
 * shard, however long the merchant's history. A change moves one count to another within one cell.
 */

/** The counter write of a payment moving from `from` (null: new) to `to`: none when the status stays. */
export function paymentCountChange(
  payment: Pick<PaymentRecord, 'merchant_id' | 'livemode' | 'currency' | 'provider'>,
  from: PaymentRecord['status'] | null,
  to: PaymentRecord['status'],
): TransactItem[] {
  if (from === to) return [];
  return [
    counterAdd(payment, 'PAYN', paymentCountKeys.sortKey(payment.currency, payment.provider), from === null ? { [to]: 1 } : { [from]: -1, [to]: 1 }),
  ];
}

/** `total`: from the count cells, unless the filters reach beyond them (an e-mail, a card, a created range): then counted over the matches. */
async function countPayments(owner: Owner, filters: PaymentFilters, ranges: readonly RangeSpec[]): Promise<number> {
  const { customer_email, card_last4, created_gte, created_lte } = filters;
  if ([customer_email, card_last4, created_gte, created_lte].some((filter) => filter !== undefined))
    return (await Promise.all(ranges.map(countItems))).reduce((sum, count) => sum + count, 0);
  const cells = await readCells(owner, 'PAYN', paymentCountKeys.all.from, paymentCountKeys.all.to);
  let total = 0;
  for (const cell of cells) {
    const { currency, provider } = paymentCountKeys.parse(cell.sk);
    if ((filters.currency ?? currency) !== currency || (filters.provider ?? provider) !== provider) continue;
    for (const [status, count] of Object.entries(cell.values)) if ((filters.status ?? status) === status) total += count;
  }
  return total;
}
