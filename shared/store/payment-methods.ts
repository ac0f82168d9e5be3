import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import { clock } from '../model/clock.ts';
import { conditionalWrite, db, sendConditional, TABLE, type TransactItem, ttl } from './client.ts';
import { commit, type Create, type Update } from './commit.ts';
import type { Target } from '../model/targets.ts';
import { Int, nullable, recordReader, Text } from './item-schemas.ts';
import { customerKeys, ownedBy, paymentMethodKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { listPage, type Page, type PageQuery } from './pagination.ts';

/** A saved card: what may be shown of it, and the reusable token each connector account issued for it. */
export interface PaymentMethodRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  customer_id: string | null;
  card: { brand: string; last4: string; bin: string; exp_month: number; exp_year: number; fingerprint: string };
  billing_details: BillingDetails | null;
  /** by account (`accountOf`): the token that account issued, and the network's id of the first authorization there */
  tokens: Record<string, ConnectorToken>;
  created_at: string;
  /** set when the merchant deleted it: the item stays (answering as absent) until its connector tokens are removed */
  deleted_at?: string | null;
  /**
   * epoch seconds (the table's TTL): made with a publishable key and not yet attached nor charged, it is deleted then,
   * with its vault items; absent from then on even before DynamoDB deletes it (TTL deletes within days)
   */
  expires_at?: number;
}

export interface BillingDetails {
  name?: string;
  email?: string;
  address?: { country?: string; postal_code?: string };
}

export interface ConnectorToken {
  provider: ProviderName;
  /** null: the built-in sandbox of that provider */
  connector_id: string | null;
  token: string;
  network_transaction_id: string | null;
}

/** The key of a connector account in `tokens`: its id, or the provider's name for its sandbox. */
export const accountOf = (target: { provider: string; connector_id?: string | null }): string => target.connector_id ?? target.provider;

const PaymentMethodItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  customer_id: nullable(Text),
  card: v.object({ brand: Text, last4: Text, bin: Text, exp_month: Int, exp_year: Int, fingerprint: Text }),
  billing_details: nullable(
    v.object({
      name: v.optional(Text),
      email: v.optional(Text),
      address: v.optional(v.object({ country: v.optional(Text), postal_code: v.optional(Text) })),
    }),
  ),
  tokens: v.record(
    Text,
    v.object({ provider: v.picklist(PROVIDERS), connector_id: nullable(Text), token: Text, network_transaction_id: nullable(Text) }),
  ),
  created_at: Text,
  deleted_at: v.optional(nullable(Text)),
  expires_at: v.optional(Int),
});
const paymentMethodOf: (item: Record<string, unknown>) => PaymentMethodRecord = recordReader('payment method', PaymentMethodItem);

/** The owner's payment method, or undefined (another owner's, or a deleted one, answers as absent). */
export async function getPaymentMethod(owner: Owner, id: string): Promise<PaymentMethodRecord | undefined> {
  const record = await getAnyPaymentMethod(owner, id);
  return record?.deleted_at ? undefined : record;
}

/** The owner's payment method, deleted or not (the worker that removes a deleted one's connector tokens). */
export async function getAnyPaymentMethod(owner: Owner, id: string): Promise<PaymentMethodRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentMethodKeys.item(id), ConsistentRead: true }));
  // a token kept by a payment that ran while the payment method was deleted may land on an item already gone
  const record = out.Item?.id === undefined ? undefined : paymentMethodOf(out.Item);
  return ownedBy(record, owner) && !expired(record) ? record : undefined;
}

const expired = (record: { expires_at?: number } | undefined): boolean => record?.expires_at !== undefined && record.expires_at <= ttl(clock.now());

/** Its expiry, when it had one, as the table's condition says it: not yet passed. */
const notExpired = 'attribute_not_exists(expires_at) OR expires_at > :now';

/**
 * Keeps a payment method past its expiry (a publishable key's, charged): false when it is gone or has expired. Kept
 * already, nothing changes.
 */
export async function keep(id: string): Promise<boolean> {
  return conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: paymentMethodKeys.item(id),
      UpdateExpression: 'REMOVE expires_at',
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted_at) AND (${notExpired})`,
      ExpressionAttributeValues: { ':now': ttl(clock.now()) },
    }),
  );
}

/** The id of the customer's payment method of this card (by fingerprint), if one was saved. */
export async function findCustomerCard(customerId: string, fingerprint: string): Promise<string | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentMethodKeys.customerCard(customerId, fingerprint), ConsistentRead: true }));
  return out.Item ? String(out.Item.payment_method_id) : undefined;
}

const listed = (record: PaymentMethodRecord) => (record.customer_id ? paymentMethodKeys.byCustomer(record.customer_id, record.id) : {});
const paymentMethodTarget = (record: Pick<PaymentMethodRecord, 'id' | 'merchant_id' | 'livemode'>): Target => ({
  entity: 'payment_method',
  id: record.id,
  owner: { merchant_id: record.merchant_id, livemode: record.livemode },
});

/** The claim of one card per customer: written with the payment method, it makes a second save of the card find the first. */
const cardClaim = (customerId: string, record: PaymentMethodRecord): Create<'taken'> => ({
  create: { entity: 'payment_method_card', customerId, fingerprint: record.card.fingerprint },
  item: { payment_method_id: record.id },
  refusal: 'taken',
});

/** The customer's first payment method becomes its default (a default already set stays). */
const defaultFor = (customerId: string, paymentMethodId: string): Update => ({
  update: { entity: 'customer', id: customerId },
  setIfAbsent: { default_payment_method: paymentMethodId },
});

/**
 * Stores a new payment method; with a customer, with the customer's claim on the card and as its default if it has
 * none. `taken`: the customer has a payment method of this card already (nothing written); `exists`: this id is
 * stored (a retried create).
 */
export async function putPaymentMethod(record: PaymentMethodRecord): Promise<'created' | 'taken' | 'exists'> {
  const put: Create<'exists'> = { create: paymentMethodTarget(record), item: { ...listed(record), ...record }, refusal: 'exists' };
  const customerId = record.customer_id;
  const result = await commit<'exists' | 'taken'>({
    writes: customerId ? [put, cardClaim(customerId, record), defaultFor(customerId, record.id)] : [put],
  });
  if (result === 'committed') return 'created';
  if (result === 'refused') throw new Error(`Payment method ${record.id} refused: its customer ${customerId} is missing`);
  return result;
}

/** A card saved again: its new expiry (and billing details, when given) on the payment method. */
export async function updateCard(id: string, card: { exp_month: number; exp_year: number }, billing: BillingDetails | null): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: paymentMethodKeys.item(id),
      UpdateExpression: `SET card.exp_month = :m, card.exp_year = :y${billing ? ', billing_details = :b' : ''}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':m': card.exp_month, ':y': card.exp_year, ...(billing ? { ':b': billing } : {}) },
    }),
  );
}

/**
 * Attaches a detached payment method to the customer (listed under it; its default if it has none), keeping it past
 * its expiry if it had one. False: not detached, or expired.
 */
export async function attach(record: PaymentMethodRecord, customerId: string): Promise<boolean> {
  const attached = await commit({
    writes: [
      {
        update: paymentMethodTarget(record),
        expect: { customer_id: null },
        absent: ['deleted_at'],
        above: { expires_at: ttl(clock.now()) },
        // attached, it is kept: a publishable key's expiry goes
        set: { customer_id: customerId, ...paymentMethodKeys.byCustomer(customerId, record.id) },
        unset: ['expires_at'],
      },
      defaultFor(customerId, record.id),
    ],
  });
  return attached === 'committed';
}

/**
 * Detaches the payment method from its customer: no longer listed, no longer the customer's default, and its card
 * claim released (a later save of the card makes a new one). Idempotent.
 */
export async function detach(record: PaymentMethodRecord): Promise<void> {
  const customerId = record.customer_id;
  if (!customerId) return;
  // refused: detached already (a retry), which is what was asked
  await commit({
    writes: [{ update: paymentMethodTarget(record), expect: { customer_id: customerId }, set: { customer_id: null }, unset: ['gsi1pk', 'gsi1sk'] }],
  });
  await releaseCustomer(record);
}

/** The customer lets go of the payment method: no longer its default, its card claim released. Idempotent. */
export async function releaseCustomer(record: Pick<PaymentMethodRecord, 'id' | 'customer_id' | 'card'>): Promise<void> {
  const customerId = record.customer_id;
  if (!customerId) return;
  await Promise.all([
    sendConditional(
      new UpdateCommand({
        TableName: TABLE,
        Key: customerKeys.item(customerId),
        UpdateExpression: 'REMOVE default_payment_method',
        ConditionExpression: 'default_payment_method = :pm',
        ExpressionAttributeValues: { ':pm': record.id },
      }),
    ),
    sendConditional(
      new DeleteCommand({
        TableName: TABLE,
        Key: paymentMethodKeys.customerCard(customerId, record.card.fingerprint),
        ConditionExpression: 'payment_method_id = :pm',
        ExpressionAttributeValues: { ':pm': record.id },
      }),
    ),
  ]);
}

/** How long a deleted payment method's item stays once deleted: its tokens are removed long before. */
const DELETED_KEPT_MS = 30 * 24 * 60 * 60_000;

/**
 * The deletion of a payment method for `commit`: marked deleted (answering as absent from then on) and unlisted, once
 * (a second deletion is refused). The item keeps its tokens until the removal worker has removed them at each
 * connector account, and its customer, whose default and card claim it releases; the table's TTL ends it.
 */
export const deletion = (record: PaymentMethodRecord, at: string): Update => ({
  update: paymentMethodTarget(record),
  absent: ['deleted_at'],
  set: { deleted_at: at, expires_at: ttl(Date.parse(at) + DELETED_KEPT_MS) },
  unset: ['gsi1pk', 'gsi1sk'],
});

/** One connector account's token removed at the provider: forgotten on the deleted payment method. Idempotent. */
export async function forgetToken(id: string, account: string): Promise<void> {
  await sendConditional(
    new UpdateCommand({
      TableName: TABLE,
      Key: paymentMethodKeys.item(id),
      UpdateExpression: 'REMOVE tokens.#account',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#account': account },
    }),
  );
}

/** The token an account issued for the card, kept (a token kept first stays): goes in the payment's transaction. */
export const tokenWrite = (id: string, account: string, token: ConnectorToken): TransactItem => ({
  Update: {
    TableName: TABLE,
    Key: paymentMethodKeys.item(id),
    UpdateExpression: 'SET tokens.#account = if_not_exists(tokens.#account, :token)',
    ExpressionAttributeNames: { '#account': account },
    ExpressionAttributeValues: { ':token': token },
  },
});

/** A page of the customer's payment methods, newest first. */
export async function listByCustomer(customerId: string, page: PageQuery): Promise<Page<PaymentMethodRecord>> {
  const partition = paymentMethodKeys.customerList(customerId);
  const result = await listPage(
    {
      index: 'gsi1',
      partition: { name: 'gsi1pk', value: partition.gsi1pk },
      sortKey: { name: 'gsi1sk' },
      cursorKey: (id) => ({ ...paymentMethodKeys.item(id), ...paymentMethodKeys.byCustomer(customerId, id) }),
    },
    page,
  );
  return { data: result.data.map(paymentMethodOf), has_more: result.has_more };
}
