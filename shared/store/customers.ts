import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import { type Created, db, TABLE } from './client.ts';
import { commit } from './commit.ts';
import { Int, nullable, recordReader, StringMap, Text } from './item-schemas.ts';
import { customerKeys, ownedBy } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { writeShards } from './write-shards.ts';
import { listPageAcross, type Page, type PageQuery, shardedList } from './pagination.ts';

export interface CustomerRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  /** the test clock whose time the customer's billing follows (test mode only) */
  test_clock?: string | null;
  email: string;
  name: string | null;
  phone: string | null;
  metadata: Record<string, string>;
  created_at: string;
  /** the card of the customer's latest successful payment, as a provider token (never the number) */
  card_on_file?: CardOnFile | null;
  /** the payment method charged by default: the first attached, unless changed */
  default_payment_method?: string | null;
}

export interface CardOnFile {
  provider: ProviderName;
  /** the connector account that issued the token (a token works nowhere else); null: the sandbox */
  connector_id: string | null;
  provider_token: string;
  /** the card's fingerprint: tells a later payment with the same card */
  fingerprint: string | null;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/**
 * The customer as the table holds it, checked when read back (see item-schemas.ts). `card_on_file` appears with the
 * customer's first successful payment.
 */
const CustomerItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  test_clock: nullable(Text),
  email: Text,
  name: nullable(Text),
  phone: nullable(Text),
  metadata: StringMap,
  created_at: Text,
  default_payment_method: v.optional(nullable(Text), null),
  card_on_file: v.optional(
    nullable(
      v.object({
        provider: v.picklist(PROVIDERS),
        connector_id: nullable(Text),
        provider_token: Text,
        fingerprint: nullable(Text),
        brand: Text,
        last4: Text,
        exp_month: Int,
        exp_year: Int,
      }),
    ),
    null,
  ),
});
const customerOf: (item: Record<string, unknown>) => CustomerRecord = recordReader('customer', CustomerItem);
const CustomerCardItem = v.pick(CustomerItem, ['id', 'card_on_file']);
const customerCardOf = recordReader('customer', CustomerCardItem);

/** Keeps the card of a successful payment on file for the customer: goes in the payment's transaction. */
export const cardOnFileUpdate = (customerId: string, card: CardOnFile) => ({
  Update: {
    TableName: TABLE,
    Key: customerKeys.item(customerId),
    UpdateExpression: 'SET card_on_file = :card',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':card': card },
  },
});

export type CustomerChanges = Partial<Pick<CustomerRecord, 'email' | 'name' | 'phone' | 'metadata' | 'default_payment_method'>>;

/** Writes a new customer; a customer already stored under its id (a retried create of the merchant) is answered. */
export async function putCustomer(customer: CustomerRecord): Promise<Created<CustomerRecord>> {
  const indexKeys = { ...customerKeys.list(customer, customer.id, await writeShards.forWrite()), ...customerKeys.byEmail(customer, customer.email) };
  const put = await commit({ writes: [{ create: { entity: 'customer', id: customer.id }, item: { ...indexKeys, ...customer }, refusal: 'exists' }] });
  if (put === 'committed') return { created: true, record: customer };
  const stored = put === 'exists' ? await readCustomer(customer.id) : undefined;
  if (!stored || !ownedBy(stored, customer)) throw new Error(`Customer ${customer.id} exists for another merchant`);
  return { created: false, record: stored };
}

/** The customer as stored, read consistently (what a change just wrote). */
async function readCustomer(customerId: string): Promise<CustomerRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: customerKeys.item(customerId), ConsistentRead: true }));
  return out.Item && customerOf(out.Item);
}

/** The owner's customer, or undefined when it does not exist or belongs to another merchant or mode. */
export async function getCustomer(owner: Owner, customerId: string): Promise<CustomerRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: customerKeys.item(customerId) }));
  const customer = out.Item && customerOf(out.Item);
  return ownedBy(customer, owner) ? customer : undefined;
}

/** Applies the changes only if the customer is the owner's; undefined otherwise. */
export async function updateCustomer(owner: Owner, customerId: string, changes: CustomerChanges): Promise<CustomerRecord | undefined> {
  const set: Record<string, unknown> = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  if (changes.email) set.gsi2pk = customerKeys.byEmail(owner, changes.email).gsi2pk;
  const updated = await commit({ writes: [{ update: { entity: 'customer', id: customerId }, expect: ownerFields(owner), set }] });
  return updated === 'committed' ? readCustomer(customerId) : undefined;
}

/**
 * Deletes the owner's customer, and with its item its list and e-mail index entries (and its card on file); false
 * when it does not exist or is another merchant's or mode's.
 */
export async function deleteCustomer(owner: Owner, customerId: string): Promise<boolean> {
  return (await commit({ writes: [{ remove: { entity: 'customer', id: customerId }, expect: ownerFields(owner) }] })) === 'committed';
}

/** The fields that make an item the owner's (its merchant and mode), as a change's condition. */
const ownerFields = (owner: Owner) => ({ merchant_id: owner.merchant_id, livemode: owner.livemode });

/** The id and card on file of an owner's customer with this (lowercase) e-mail, if any. */
export async function findCustomerByEmail(owner: Owner, email: string): Promise<Pick<CustomerRecord, 'id' | 'card_on_file'> | undefined> {
  const { gsi2pk } = customerKeys.byEmail(owner, email);
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': gsi2pk },
      ProjectionExpression: 'id, card_on_file',
      Limit: 1,
    }),
  );
  const found = out.Items?.[0];
  return found && customerCardOf(found);
}

export async function listCustomers(owner: Owner, page: PageQuery): Promise<Page<CustomerRecord>> {
  const result = await listPageAcross(shardedList(customerKeys.listPartitions(owner, await writeShards.forRead())), page);
  return { data: result.data.map(customerOf), has_more: result.has_more };
}
