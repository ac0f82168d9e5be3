import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ProviderName } from '../providers/types.ts';
import { assignments } from './expressions.ts';
import { conditionalUpdate, type Created, createOrFind, db, TABLE } from './client.ts';
import { customerKeys } from './keys.ts';
import { listPage, merchantList, type Page, type PageQuery } from './pagination.ts';

export interface CustomerRecord {
  id: string;
  merchant_id: string;
  email: string;
  name: string | null;
  phone: string | null;
  metadata: Record<string, string>;
  created_at: string;
  /** the card of the customer's latest successful payment, as a provider token (never the number) */
  card_on_file?: CardOnFile | null;
}

export interface CardOnFile {
  provider: ProviderName;
  /** the connector account that issued the token (a token works nowhere else); null: the sandbox */
  connector_id?: string | null;
  provider_token: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

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

export type CustomerChanges = Partial<Pick<CustomerRecord, 'email' | 'name' | 'phone' | 'metadata'>>;

const indexKeys = (c: Pick<CustomerRecord, 'id' | 'merchant_id' | 'email'>) => ({
  ...customerKeys.list(c.merchant_id, c.id),
  ...customerKeys.byEmail(c.merchant_id, c.email),
});

/** Writes a new customer; a customer already stored under its id (a retried create of the merchant) is answered. */
export async function putCustomer(customer: CustomerRecord): Promise<Created<CustomerRecord>> {
  const key = customerKeys.item(customer.id);
  const put = await createOrFind(
    new PutCommand({
      TableName: TABLE,
      Item: { ...key, type: 'customer', ...indexKeys(customer), ...customer },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
    key,
  );
  if (put.created) return { created: true, record: customer };
  const existing = put.existing as CustomerRecord | undefined;
  if (existing?.merchant_id !== customer.merchant_id) throw new Error(`Customer ${customer.id} exists for another merchant`);
  return { created: false, record: strip(existing) };
}

/** The merchant's customer, or undefined when it does not exist or belongs to another merchant. */
export async function getCustomer(merchantId: string, customerId: string): Promise<CustomerRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: customerKeys.item(customerId) }));
  const item = out.Item as CustomerRecord | undefined;
  return item?.merchant_id === merchantId ? strip(item) : undefined;
}

/** Applies the changes only if the customer is the merchant's; undefined otherwise. */
export async function updateCustomer(merchantId: string, customerId: string, changes: CustomerChanges): Promise<CustomerRecord | undefined> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (changes.email) entries.push(['gsi2pk', customerKeys.byEmail(merchantId, changes.email).gsi2pk]);
  const names: Record<string, string> = { '#merchant': 'merchant_id' };
  const values: Record<string, unknown> = { ':merchant': merchantId };
  const sets = assignments(entries, names, values);
  const updated = await conditionalUpdate<CustomerRecord>(
    new UpdateCommand({
      TableName: TABLE,
      Key: customerKeys.item(customerId),
      UpdateExpression: sets.length ? `SET ${sets.join(', ')}` : 'SET #merchant = :merchant',
      ConditionExpression: 'attribute_exists(pk) AND #merchant = :merchant',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return updated && strip(updated);
}

/** The id of a merchant's customer with this (lowercase) e-mail, if any. */
export async function findCustomerIdByEmail(merchantId: string, email: string): Promise<string | undefined> {
  const { gsi2pk } = customerKeys.byEmail(merchantId, email);
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': gsi2pk },
      ProjectionExpression: 'id',
      Limit: 1,
    }),
  );
  return out.Items?.[0]?.id as string | undefined;
}

export async function listCustomers(merchantId: string, page: PageQuery): Promise<Page<CustomerRecord>> {
  const result = await listPage<CustomerRecord>(merchantList(customerKeys, merchantId), page);
  return { data: result.data.map(strip), has_more: result.has_more };
}

function strip(item: CustomerRecord): CustomerRecord {
  const { id, merchant_id, email, name, phone, metadata, created_at, card_on_file } = item;
  return {
    id,
    merchant_id,
    email,
    name: name ?? null,
    phone: phone ?? null,
    metadata: metadata ?? {},
    created_at,
    card_on_file: card_on_file ?? null,
  };
}
