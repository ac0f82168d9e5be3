import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { DomainEvent } from '../model/events.ts';
import type { InvoiceState } from '../model/state-machines.ts';
import { equalityFilter } from './expressions.ts';
import { db, TABLE, type TransactItem } from './client.ts';
import { commitNumbered } from './commit.ts';
import type { Operation, Target } from '../model/targets.ts';
import { Int, nullable, operationItem, picklistOf, recordReader, StringMap, Text } from './item-schemas.ts';
import { invoiceKeys, merchantKeys, ownedBy } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { listPage, merchantList, type Page, type PageQuery } from './pagination.ts';

export type InvoiceStatus = InvoiceState;
export type InvoiceChannel = 'email' | 'sms' | 'whatsapp';

export interface InvoiceItem {
  name: string;
  amount: number;
  quantity: number;
}

/** One authorization attempt of a renewal charge of the invoice: where it went, how it ended, and why it was made. */
export interface InvoicePaymentAttempt {
  payment_id: string;
  attempt_id: string;
  provider: string;
  connector_id: string | null;
  status: string;
  decline_code: string | null;
  reason: string;
  created_at: string;
}

export interface InvoiceRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  /** `INV-000001`: per merchant and mode, gapless */
  number: string;
  customer_id: string;
  /** who the invoice was issued by and to, as they were at issue time (printed on the PDF) */
  merchant_email: string | null;
  customer_name: string | null;
  customer_email: string;
  status: InvoiceStatus;
  currency: string;
  items: InvoiceItem[];
  subtotal: number;
  tax: number;
  tax_rate: number;
  total: number;
  due_date: string;
  created_at: string;
  sent_at: string | null;
  sent_to: string | null;
  channel: InvoiceChannel | null;
  paid_at: string | null;
  payment_id: string | null;
  subscription_id: string | null;
  period_start: string | null;
  metadata: Record<string, string>;
  /** a renewal's charge failed: the next retry's date (null: none scheduled) and why */
  next_retry_at: string | null;
  retry_reason: string | null;
  /** the renewal charges' attempts, oldest first */
  payment_attempts: InvoicePaymentAttempt[];
}

/** The invoice as stored: a send in flight holds it with its operation (see store/commit.ts). */
export type StoredInvoice = InvoiceRecord & { op?: Operation };

/** A renewal charge's attempts appended to its invoice, in the transaction that records the charge's outcome. */
export const attemptsAppended = (invoiceId: string, attempts: readonly InvoicePaymentAttempt[]): TransactItem => ({
  Update: {
    TableName: TABLE,
    Key: invoiceKeys.item(invoiceId),
    UpdateExpression: 'SET payment_attempts = list_append(if_not_exists(payment_attempts, :none), :attempts)',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':none': [], ':attempts': attempts },
  },
});

/** The invoice as the table holds it, checked when read back (see item-schemas.ts). */
const InvoiceItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  number: Text,
  customer_id: Text,
  merchant_email: nullable(Text),
  customer_name: nullable(Text),
  customer_email: Text,
  status: picklistOf<InvoiceStatus>()(['draft', 'sent', 'paid']),
  currency: Text,
  items: v.array(v.object({ name: Text, amount: Int, quantity: Int })),
  subtotal: Int,
  tax: Int,
  tax_rate: v.number(),
  total: Int,
  due_date: Text,
  created_at: Text,
  sent_at: nullable(Text),
  sent_to: nullable(Text),
  channel: nullable(picklistOf<InvoiceChannel>()(['email', 'sms', 'whatsapp'])),
  paid_at: nullable(Text),
  payment_id: nullable(Text),
  subscription_id: nullable(Text),
  period_start: nullable(Text),
  metadata: StringMap,
  next_retry_at: nullable(Text),
  retry_reason: nullable(Text),
  payment_attempts: v.array(
    v.object({
      payment_id: Text,
      attempt_id: Text,
      provider: Text,
      connector_id: nullable(Text),
      status: Text,
      decline_code: nullable(Text),
      reason: Text,
      created_at: Text,
    }),
  ),
  op: v.optional(operationItem(['invoice_send'])),
});
export const invoiceOf: (item: Record<string, unknown>) => StoredInvoice = recordReader('invoice', InvoiceItem);

/** What the merchant's profile holds for its invoices: the sign-in e-mail (the issuer). */
const IssuerItem = v.object({ email: v.optional(Text) });
const issuerOf = recordReader('merchant profile', IssuerItem);

export const invoiceTarget = (i: Pick<InvoiceRecord, 'id' | 'merchant_id' | 'livemode'>): Target => ({
  entity: 'invoice',
  id: i.id,
  owner: { merchant_id: i.merchant_id, livemode: i.livemode },
});

/**
 * Gives the invoice the owner's next number (test and live count apart) and stores it with its event, in one commit
 * of the owner's number sequence (commitNumbered: gapless, a create that lost the race builds again with the next).
 * `build` makes the invoice and its event for a number. `existing`: the invoice `invoiceId` was stored already (by an
 * earlier run of the same request), which is answered as it is: no number is taken for it twice.
 */
export async function insertNumberedInvoice(
  owner: Owner,
  invoiceId: string,
  build: (sequence: number) => { invoice: InvoiceRecord; event: DomainEvent },
): Promise<{ invoice: InvoiceRecord; event?: DomainEvent; existing?: true }> {
  let built: { invoice: InvoiceRecord; event: DomainEvent } | undefined;
  const result = await commitNumbered({ entity: 'invoice_counter', owner }, (sequence) => {
    built = build(sequence);
    return { writes: [{ create: invoiceTarget(built.invoice), item: { ...built.invoice } }], events: [built.event] };
  });
  if (result === 'committed') return built!;
  // the invoice's own condition failed: an earlier run of the request stored it (with its number) already
  const earlier = await getInvoiceById(invoiceId);
  if (earlier) return { invoice: earlier, existing: true };
  throw new Error(`Invoice ${invoiceId} refused, and no invoice is stored under its id`);
}

/** The owner's invoice (with the send in flight on it, if any), or undefined when missing or another merchant's or mode's. */
export async function getInvoice(owner: Owner, invoiceId: string): Promise<StoredInvoice | undefined> {
  const invoice = await getInvoiceById(invoiceId);
  return ownedBy(invoice, owner) ? invoice : undefined;
}

/** Any merchant's invoice: only for a request that proved itself otherwise (a signed link). */
export async function getInvoiceById(invoiceId: string): Promise<StoredInvoice | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: invoiceKeys.item(invoiceId), ConsistentRead: true }));
  return out.Item ? invoiceOf(out.Item) : undefined;
}

export interface InvoiceFilters {
  status?: InvoiceStatus | undefined;
  customer_id?: string | undefined;
}

/** The owner's invoices, newest first, filtered by status and customer. */
export async function listInvoices(owner: Owner, filters: InvoiceFilters, page: PageQuery): Promise<Page<InvoiceRecord>> {
  const filter = equalityFilter({ status: filters.status, customer_id: filters.customer_id });
  const result = await listPage(merchantList(invoiceKeys, owner, filter), page);
  return { data: result.data.map(invoiceOf), has_more: result.has_more };
}

/**
 * The merchant's sign-in e-mail (printed on its invoices as the issuer).
 * Belongs in `store/merchants.ts` (which has no read by id yet); kept here until it moves.
 */
export async function merchantEmail(merchantId: string): Promise<string | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: merchantKeys.profile(merchantId), ProjectionExpression: 'email' }));
  return out.Item ? issuerOf(out.Item).email : undefined;
}
