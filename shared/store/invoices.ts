import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DomainEvent } from '../domain/events.ts';
import { assignments, equalityFilter } from './expressions.ts';
import { db, isConditionFailure, TABLE } from './client.ts';
import { eventPut } from './events.ts';
import { invoiceKeys, merchantKeys } from './keys.ts';
import { listPage, merchantList, type Page, type PageQuery } from './pagination.ts';

export type InvoiceStatus = 'draft' | 'sent' | 'paid';
export type InvoiceChannel = 'email' | 'sms' | 'whatsapp';

export interface InvoiceItem {
  name: string;
  amount: number;
  quantity: number;
}

export interface InvoiceRecord {
  id: string;
  merchant_id: string;
  /** `INV-000001`: per merchant, gapless */
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
}

/** The counter item holds the last number given out in `n`. */
async function readCounter(merchantId: string): Promise<number> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: invoiceKeys.numberCounter(merchantId), ConsistentRead: true }));
  return Number(out.Item?.n ?? 0);
}

interface Cancellation {
  CancellationReasons?: Array<{ Code?: string }>;
}

/**
 * Lost the race for the number: the counter moved (its condition failed) or another transaction held it at the same
 * moment (conflict). Any other failure (e.g. the invoice's own condition) is not retried.
 */
function lostNumberRace(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === 'TransactionConflictException') return true;
  if (e.name !== 'TransactionCanceledException') return false;
  const reasons = (e as unknown as Cancellation).CancellationReasons;
  if (!reasons) return /ConditionalCheckFailed|TransactionConflict/.test(e.message);
  const [counter, ...others] = reasons;
  const counterLost = counter?.Code === 'ConditionalCheckFailed' || counter?.Code === 'TransactionConflict';
  return (counterLost || others.some((r) => r.Code === 'TransactionConflict')) && others.every((r) => !r.Code || r.Code === 'None' || r.Code === 'TransactionConflict');
}

/** Racing creates back off with full jitter (doubling from the base up to the cap), for at most the time budget. */
const BACKOFF_BASE_MS = 10;
const BACKOFF_CAP_MS = 500;
/** Well inside the API function's 10 s timeout; nothing is written by a create that gives up. */
const NUMBER_RACE_BUDGET_MS = 8_000;

/**
 * Gives the invoice the merchant's next number and stores it with its event, in ONE transaction: the counter moves
 * from the value read to the next only if nobody moved it meanwhile, so numbers are consecutive and a failed write
 * uses none (gapless). A create that lost the race waits a jittered while, reads the counter again and retries.
 * `build` makes the invoice and its event for a number.
 */
export async function insertNumberedInvoice(
  merchantId: string,
  build: (sequence: number) => { invoice: InvoiceRecord; event: DomainEvent },
): Promise<{ invoice: InvoiceRecord; event: DomainEvent }> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    const current = await readCounter(merchantId);
    const next = current + 1;
    const built = build(next);
    try {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: TABLE,
                Key: invoiceKeys.numberCounter(merchantId),
                UpdateExpression: 'SET n = :next, #type = :type',
                ConditionExpression: current === 0 ? 'attribute_not_exists(n)' : 'n = :current',
                ExpressionAttributeNames: { '#type': 'type' },
                ExpressionAttributeValues: { ':next': next, ':type': 'invoice_counter', ...(current === 0 ? {} : { ':current': current }) },
              },
            },
            {
              Put: {
                TableName: TABLE,
                Item: { ...invoiceKeys.item(built.invoice.id), ...invoiceKeys.list(merchantId, built.invoice.id), type: 'invoice', ...built.invoice },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            eventPut(built.event),
          ],
        }),
      );
      return built;
    } catch (e) {
      if (!lostNumberRace(e) || performance.now() - started > NUMBER_RACE_BUDGET_MS) throw e;
      // Wait first, then read afresh: a value learned before the wait would be stale after it.
      await sleep(Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt));
    }
  }
}

/** The merchant's invoice, or undefined when missing or another merchant's. */
export async function getInvoice(merchantId: string, invoiceId: string): Promise<InvoiceRecord | undefined> {
  const invoice = await getInvoiceById(invoiceId);
  return invoice?.merchant_id === merchantId ? invoice : undefined;
}

/** Any merchant's invoice: only for a request that proved itself otherwise (a signed link). */
export async function getInvoiceById(invoiceId: string): Promise<InvoiceRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: invoiceKeys.item(invoiceId), ConsistentRead: true }));
  return out.Item ? strip(out.Item as InvoiceRecord) : undefined;
}

const STATE_NAMES = { '#status': 'status', '#merchant': 'merchant_id' };
/** No send holds the invoice (none started, or its run died and the lease ran out); needs `:now`. */
const NO_LIVE_SEND_CLAIM = '(attribute_not_exists(send_claim) OR send_claim_until < :now)';

/** `#merchant = :merchant AND #status IN (:from0, …)`, with its values added to `values`. */
function ownedIn(invoice: InvoiceRecord, from: readonly InvoiceStatus[], values: Record<string, unknown>): string {
  values[':merchant'] = invoice.merchant_id;
  from.forEach((status, i) => (values[`:from${i}`] = status));
  return `#merchant = :merchant AND #status IN (${from.map((_, i) => `:from${i}`).join(', ')})`;
}

/**
 * Moves the merchant's invoice from one of `from` and writes the move's event, in one transaction.
 * A send's move completes its claim (`sendClaim`, cleared here); any other move waits for no live send claim.
 * False when the invoice is not (or no longer) in one of `from`, is being sent, or is not the merchant's.
 */
export async function moveInvoice(
  invoice: InvoiceRecord,
  from: readonly InvoiceStatus[],
  changes: Partial<InvoiceRecord>,
  event: DomainEvent,
  guard: { sendClaim: string } | { now: number },
): Promise<boolean> {
  const names: Record<string, string> = { ...STATE_NAMES };
  const values: Record<string, unknown> = {};
  const state = ownedIn(invoice, from, values);
  const sets = assignments(Object.entries(changes), names, values);
  let claimCondition: string;
  if ('sendClaim' in guard) {
    values[':claim'] = guard.sendClaim;
    claimCondition = 'send_claim = :claim';
  } else {
    values[':now'] = guard.now;
    claimCondition = NO_LIVE_SEND_CLAIM;
  }
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: TABLE,
              Key: invoiceKeys.item(invoice.id),
              UpdateExpression: `SET ${sets.join(', ')} REMOVE send_claim, send_claim_until`,
              ConditionExpression: `${state} AND ${claimCondition}`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          },
          eventPut(event),
        ],
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/**
 * Claims the invoice for a send (the message goes out between claim and move): while the claim lives, other
 * moves (mark-paid, another send) are refused, so a refused operation never follows a message already sent.
 */
export async function claimInvoiceSend(invoice: InvoiceRecord, from: readonly InvoiceStatus[], claim: string, now: number, leaseMs: number): Promise<boolean> {
  const values: Record<string, unknown> = { ':claim': claim, ':until': now + leaseMs, ':now': now };
  const state = ownedIn(invoice, from, values);
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: invoiceKeys.item(invoice.id),
        UpdateExpression: 'SET send_claim = :claim, send_claim_until = :until',
        ConditionExpression: `${state} AND ${NO_LIVE_SEND_CLAIM}`,
        ExpressionAttributeNames: { ...STATE_NAMES },
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/** Releases a send claim whose message could not be sent; the invoice stays as it was. */
export async function releaseInvoiceSend(invoice: InvoiceRecord, claim: string): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: invoiceKeys.item(invoice.id),
        UpdateExpression: 'REMOVE send_claim, send_claim_until',
        ConditionExpression: 'send_claim = :claim',
        ExpressionAttributeValues: { ':claim': claim },
      }),
    );
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}

export interface InvoiceFilters {
  status?: InvoiceStatus | undefined;
  customer_id?: string | undefined;
}

/** The merchant's invoices, newest first, filtered by status and customer. */
export async function listInvoices(merchantId: string, filters: InvoiceFilters, page: PageQuery): Promise<Page<InvoiceRecord>> {
  const filter = equalityFilter({ status: filters.status, customer_id: filters.customer_id });
  const result = await listPage<InvoiceRecord>(
    merchantList(invoiceKeys, merchantId, filter),
    page,
  );
  return { data: result.data.map(strip), has_more: result.has_more };
}

/**
 * The merchant's sign-in e-mail (printed on its invoices as the issuer).
 * Belongs in `store/merchants.ts` (which has no read by id yet); kept here until it moves.
 */
export async function merchantEmail(merchantId: string): Promise<string | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: merchantKeys.profile(merchantId), ProjectionExpression: 'email' }));
  return out.Item?.email as string | undefined;
}

/** The record without table keys (gsi1 is read as a projection of everything). */
function strip(item: InvoiceRecord): InvoiceRecord {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g1s, type: _type, ...record } = item as InvoiceRecord & Record<string, unknown>;
  return record as unknown as InvoiceRecord;
}
