/**
 * Invoices: draft on create (with a gapless per-merchant number), sent (again and again) by e-mail, SMS or WhatsApp,
 * paid once (the INVOICE table in state-machines.ts). Every transition is one commit that carries its event
 * (invoice.created / .sent / .paid) in the same transaction. The PDF (`invoice-pdf.ts`) is rendered on request behind a signed, expiring link (`pdf_url`, new on
 * every read).
 */
import * as v from 'valibot';
import { config } from '../config.ts';
import { CreateInvoiceBody, type ListInvoicesQuery } from '../schemas/invoices.ts';
import { type Change, commit } from '../store/commit.ts';
import * as customers from '../store/customers.ts';
import * as invoices from '../store/invoices.ts';
import type { InvoiceChannel, InvoiceRecord, InvoiceStatus, StoredInvoice } from '../store/invoices.ts';
import { clock, isoNow } from '../model/clock.ts';
import { clockTimeOf } from './clock-binding.ts';
import { BadRequest, InvalidState, NotFound, ResourceMissing } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { freshOrigin, idFor, isId, type Origin } from '../model/ids.ts';
import { INVOICE, transition } from '../model/state-machines.ts';
import { signedPdfUrl, signedPayUrl } from './signed-links.ts';
import { invoiceTotals } from './tax.ts';
import { type Merchant, ownerOf } from './auth.ts';
import type { Owner } from '../model/targets.ts';

export type { InvoiceChannel, InvoiceStatus };

export interface NewInvoice {
  customer_id: string;
  items: { name: string; amount: number; quantity: number }[];
  /** uppercase ISO 4217 */
  currency: string;
  /** YYYY-MM-DD */
  due_date: string;
  /** percent, 0–100, at most 4 decimals */
  tax_rate: number;
  subscription_id?: string;
  /** the subscription period this invoice bills (YYYY-MM-DD) */
  period_start?: string;
  metadata?: Record<string, string>;
}

/** The invoice as the API returns it: the stored record without its issuer/recipient snapshot, plus a PDF link. */
export type InvoiceView = Omit<InvoiceRecord, 'merchant_id' | 'merchant_email' | 'customer_name' | 'customer_email'> & {
  object: 'invoice';
  /** signed link to the PDF, valid 7 days; null only when no public base URL is known (outside a request) */
  pdf_url: string | null;
};

const toView = (i: InvoiceRecord, pdfUrl: string | null): InvoiceView => ({
  id: i.id,
  object: 'invoice',
  livemode: i.livemode,
  number: i.number,
  customer_id: i.customer_id,
  status: i.status,
  currency: i.currency,
  items: i.items,
  subtotal: i.subtotal,
  tax: i.tax,
  tax_rate: i.tax_rate,
  total: i.total,
  due_date: i.due_date,
  pdf_url: pdfUrl,
  created_at: i.created_at,
  sent_at: i.sent_at,
  sent_to: i.sent_to,
  channel: i.channel,
  paid_at: i.paid_at,
  payment_id: i.payment_id,
  subscription_id: i.subscription_id,
  period_start: i.period_start,
  metadata: i.metadata,
  next_retry_at: i.next_retry_at,
  retry_reason: i.retry_reason,
  payment_attempts: i.payment_attempts,
});

/** A fresh signed link on every read: from the request's base URL, or the configured public one outside a request. */
export async function pdfUrlOf(invoiceId: string, baseUrl: string | undefined): Promise<string | null> {
  const base = baseUrl ?? config.PUBLIC_API_URL;
  return base ? signedPdfUrl(base, invoiceId) : null;
}

/** The invoice's hosted payment page (payment-links.ts), signed the same way. */
export async function payUrlOf(invoiceId: string, baseUrl: string | undefined): Promise<string | null> {
  const base = baseUrl ?? config.PUBLIC_API_URL;
  return base ? signedPayUrl(base, invoiceId) : null;
}

export const view = async (invoice: InvoiceRecord, baseUrl: string | undefined): Promise<InvoiceView> =>
  toView(invoice, await pdfUrlOf(invoice.id, baseUrl));

/** `INV-000001`; past 999,999 the number simply grows a digit. */
export const invoiceNumber = (sequence: number): string => `INV-${String(sequence).padStart(6, '0')}`;

/**
 * The same rules as `POST /api/invoices` for callers inside the service (subscription renewals): a renewal can never
 * store an invoice the API would refuse. The first problem is a 400 naming its field.
 */
function validated(input: NewInvoice): v.InferOutput<typeof CreateInvoiceBody> {
  const result = v.safeParse(CreateInvoiceBody, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw new BadRequest(issue.received === 'undefined' ? 'parameter_missing' : 'parameter_invalid', v.getDotPath(issue) ?? undefined);
}

/**
 * Creates a draft invoice with the merchant's next number; ResourceMissing('customer_id') for a customer not the
 * merchant's. Its id and creation time come from the request's `origin`: a request run again after a crash (same
 * Idempotency-Key) finds the invoice its first run stored and answers it, with the number it already has.
 */
export async function createInvoice(merchant: Merchant, input: NewInvoice, baseUrl: string, origin: Origin = freshOrigin()): Promise<InvoiceView> {
  const body = validated(input);
  if (!isId('customer', body.customer_id)) throw new ResourceMissing('customer_id');
  const [customer, issuer] = await Promise.all([customers.getCustomer(ownerOf(merchant), body.customer_id), invoices.merchantEmail(merchant.id)]);
  if (!customer) throw new ResourceMissing('customer_id');

  const totals = invoiceTotals(body.items, body.tax_rate);
  // A renewal's invoice is dated by its period (the clock's day during an advance); one made through the API for a
  // customer on a test clock, at the clock's time, as its subscriptions are.
  const createdAt = input.period_start ? origin.at : ((await clockTimeOf(customer.test_clock)) ?? origin.at);
  const id = idFor('invoice', origin);
  const pdfUrl = await pdfUrlOf(id, baseUrl);
  const draft: Omit<InvoiceRecord, 'number'> = {
    id,
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    customer_id: customer.id,
    merchant_email: issuer ?? null,
    customer_name: customer.name,
    customer_email: customer.email,
    status: 'draft',
    currency: body.currency,
    items: body.items,
    ...totals,
    tax_rate: body.tax_rate,
    due_date: body.due_date,
    created_at: new Date(createdAt).toISOString(),
    sent_at: null,
    sent_to: null,
    channel: null,
    paid_at: null,
    payment_id: null,
    subscription_id: input.subscription_id ?? null,
    period_start: input.period_start ?? null,
    metadata: body.metadata ?? {},
    next_retry_at: null,
    retry_reason: null,
    payment_attempts: [],
  };
  const { invoice } = await invoices.insertNumberedInvoice(ownerOf(merchant), id, (sequence) => {
    const invoice: InvoiceRecord = { ...draft, number: invoiceNumber(sequence) };
    return { invoice, event: newEvent(ownerOf(merchant), 'invoice.created', { ...toView(invoice, pdfUrl) }) };
  });
  if (invoice.merchant_id !== merchant.id) throw new Error('An invoice id was minted twice');
  return toView(invoice, pdfUrl);
}

export async function load(owner: Owner, invoiceId: string): Promise<StoredInvoice> {
  const invoice = isId('invoice', invoiceId) ? await invoices.getInvoice(owner, invoiceId) : undefined;
  if (!invoice) throw new NotFound();
  return invoice;
}

export async function getInvoice(merchant: Merchant, invoiceId: string, baseUrl: string): Promise<InvoiceView> {
  return view(await load(ownerOf(merchant), invoiceId), baseUrl);
}

export async function listInvoices(merchant: Merchant, query: v.InferOutput<typeof ListInvoicesQuery>, baseUrl: string) {
  const { limit, starting_after, ending_before, status, customer_id } = query;
  const page = await invoices.listInvoices(ownerOf(merchant), { status, customer_id }, { limit, starting_after, ending_before });
  return { object: 'list' as const, data: await Promise.all(page.data.map((i) => view(i, baseUrl))), has_more: page.has_more };
}

/**
 * Applies `operation` of the INVOICE table with its changes and event in one commit, or answers invalid_state with
 * the reason: the invoice's state does not allow it (also when a racing transition won), or a send is under way. `sendOp`:
 * the send operation that holds the invoice, finished by this transition; without it, no live send may hold the invoice.
 */
export async function stepInvoice(
  invoice: StoredInvoice,
  operation: keyof typeof INVOICE,
  changes: Partial<InvoiceRecord>,
  pdfUrl: string | null,
  sendOp?: string,
) {
  const step = transition('invoice', INVOICE, operation, invoice.status);
  const result = toView({ ...invoice, ...changes, status: step.to }, pdfUrl);
  const event = newEvent(invoice, INVOICE[operation].event, { ...result });
  const committed = await commit({
    writes: [
      { update: invoices.invoiceTarget(invoice), transition: step, set: changes, operation: sendOp ? { finish: sendOp } : { idle: clock.now() } },
    ],
    events: [event],
  });
  if (committed === 'refused') throw await refusal(invoice, operation);
  return result;
}

/** Why a transition of the invoice was refused, judged on the invoice as it is now. */
export async function refusal(invoice: InvoiceRecord, operation: keyof typeof INVOICE): Promise<InvalidState> {
  const now = await load(invoice, invoice.id);
  transition('invoice', INVOICE, operation, now.status);
  return new InvalidState(undefined, `the ${now.status} invoice is being sent at this moment`);
}

/**
 * Marks a draft or sent invoice paid (optionally by one of the merchant's payments); paying twice answers
 * invalid_state. `baseUrl` makes the response's `pdf_url` (default: the configured public URL).
 */
export async function markInvoicePaid(
  merchant: Merchant,
  invoiceId: string,
  paymentId?: string,
  baseUrl?: string,
): Promise<InvoiceView & { status: 'paid'; paid_at: string }> {
  const invoice = await load(ownerOf(merchant), invoiceId);
  const changes = { paid_at: isoNow(), payment_id: paymentId ?? null, next_retry_at: null, retry_reason: null };
  return (await stepInvoice(invoice, 'markPaid', changes, await pdfUrlOf(invoice.id, baseUrl))) as InvoiceView & { status: 'paid'; paid_at: string };
}

/**
 * A renewal's charge of the invoice failed: when it is tried again (null: not scheduled) and why, with
 * `invoice.payment_failed`; a change for the subscription's own commit, so both say the same. A paid invoice is
 * left alone (the merchant collected it meanwhile).
 */
export async function paymentFailedChange(
  invoice: InvoiceRecord,
  failure: Pick<InvoiceRecord, 'next_retry_at' | 'retry_reason'>,
  baseUrl: string | undefined,
): Promise<Partial<Pick<Change, 'writes' | 'events'>>> {
  if (invoice.status === 'paid') return {};
  const failed = { ...invoice, ...failure };
  return {
    writes: [{ update: invoices.invoiceTarget(invoice), inStates: ['draft', 'sent'], set: failure }],
    events: [newEvent(invoice, 'invoice.payment_failed', { ...toView(failed, await pdfUrlOf(invoice.id, baseUrl)) })],
  };
}
