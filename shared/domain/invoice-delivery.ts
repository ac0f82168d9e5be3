import { emailSender } from '../messaging/email.ts';
import { messageSender } from '../messaging/messages.ts';
import type { Operation } from '../model/targets.ts';
import * as customers from '../store/customers.ts';
import * as invoices from '../store/invoices.ts';
import type { InvoiceRecord, StoredInvoice } from '../store/invoices.ts';
import { isoNow } from '../model/clock.ts';
import { beginOn, type DeclaredOperation, finish, leaseFromNow, runOperation, takeOverOperation } from './operations.ts';
import { BadRequest, ResourceMissing } from '../model/errors.ts';
import { newId } from '../model/ids.ts';
import { type InvoiceChannel, type InvoiceView, load, pdfUrlOf, payUrlOf, refusal, stepInvoice } from './invoices.ts';
import { PDF_LINK_TTL_SECONDS } from './signed-links.ts';
import { INVOICE, transition } from '../model/state-machines.ts';
import { formatMoney } from './tax.ts';
import { type Merchant, ownerOf } from './auth.ts';

/*
 * Sending an invoice lives apart from the rest of invoicing so that only the functions that send (invoices/send,
 * the renewal worker) bundle and load the e-mail and messaging clients.
 */

const LINK_DAYS = PDF_LINK_TTL_SECONDS / 86_400;

/** What the customer receives, per channel: the amount in the currency's format, the signed PDF and payment links. */
export function invoiceMessage(invoice: InvoiceRecord, pdfUrl: string, payUrl: string) {
  const amount = formatMoney(invoice.total, invoice.currency);
  const issuer = invoice.merchant_email ?? 'Your supplier';
  const greeting = invoice.customer_name ? `Hello ${invoice.customer_name},` : 'Hello,';
  return {
    subject: `Invoice ${invoice.number} for ${amount}, due ${invoice.due_date}`,
    email: [
      greeting,
      '',
      `${issuer} sent you invoice ${invoice.number} for ${amount}, due on ${invoice.due_date}.`,
      '',
      `View or download the invoice (PDF, the link is valid for ${LINK_DAYS} days):`,
      pdfUrl,
      '',
      'Pay it online, by card:',
      payUrl,
      '',
      `Invoice ${invoice.number} (${invoice.id})`,
    ].join('\n'),
    short: `Invoice ${invoice.number} from ${issuer}: ${amount} due ${invoice.due_date}. PDF: ${pdfUrl}`,
    /** WhatsApp template body parameters: {{1}} number, {{2}} amount, {{3}} due date, {{4}} link */
    params: [invoice.number, amount, invoice.due_date, pdfUrl],
  };
}

/**
 * Sends the invoice over `channel` (e-mail, or sms/whatsapp to the customer's phone: 400 `customer_has_no_phone` without
 * one) and moves it to `sent`. Re-sending a sent invoice is allowed; a paid one, or one being sent or marked paid at this
 * moment, answers invalid_state. The send is an operation (`invoice_send`) begun before the message goes out, so a
 * racing mark-paid or second send is refused; a failed send leaves the invoice as it was, and a dead run's send is
 * finished by the reconciler (reconcileInvoiceSend).
 */
export async function sendInvoice(merchant: Merchant, invoiceId: string, channel: InvoiceChannel, baseUrl: string): Promise<SentView> {
  const invoice = await load(ownerOf(merchant), invoiceId);
  return runOperation(invoiceSend, { invoice, channel, baseUrl, links: await linksOf(invoice, baseUrl) }) as Promise<SentView>;
}

async function linksOf(invoice: InvoiceRecord, baseUrl: string | undefined): Promise<{ pdfUrl: string; payUrl: string }> {
  const [pdfUrl, payUrl] = await Promise.all([pdfUrlOf(invoice.id, baseUrl), payUrlOf(invoice.id, baseUrl)]);
  if (!pdfUrl || !payUrl) throw new Error('No public base URL to link the invoice PDF from');
  return { pdfUrl, payUrl };
}

/** A send of `invoice` (as read) over `channel`; the reconciler's take-over names neither (the operation holds them). */
interface InvoiceSendRun {
  invoice: StoredInvoice;
  channel?: InvoiceChannel;
  baseUrl?: string;
  /** a first send's links, made before it begins */
  links?: { pdfUrl: string; payUrl: string };
}

/** What a send's call did: sent (with the invoice as sent and its PDF link), not sent (why), or nothing to send. */
type Delivery = { sent: { current: StoredInvoice; pdfUrl: string } } | { failed: unknown } | { skipped: true };

/**
 * An invoice send: begun on the invoice before the message goes out (a racing mark-paid or second send is refused),
 * the message sent, the invoice moved to `sent`. A failed send leaves the invoice as it was. Taken over (its run
 * died), it is sent again: nobody knows whether its message went out (a message service takes no idempotency key),
 * so at least once. A customer may get the invoice twice, never not at all; a send charges nothing, so nobody pays
 * twice. An invoice paid meanwhile (mark-paid after the lease ended) is not sent again; the operation ends.
 */
export const invoiceSend: DeclaredOperation<InvoiceSendRun, Delivery, SentView | undefined> = {
  what: 'this invoice',
  target: ({ invoice }) => invoices.invoiceTarget(invoice),
  held: ({ invoice }) => invoice.op,
  // a send in flight: the invoice is being sent at this moment
  busy: async ({ invoice }) => Promise.reject(await refusal(invoice, 'send')),
  // a send whose run died holds the invoice: finished first (sent again, at least once), never overwritten
  settleStale: async (input, stale) => {
    const finished = await takeOverOperation(invoiceSend, { invoice: { ...input.invoice, op: stale }, baseUrl: input.baseUrl });
    return finished ? { answer: finished } : { again: { ...input, invoice: await load(input.invoice, input.invoice.id) } };
  },
  start: async ({ invoice, channel }) => {
    transition('invoice', INVOICE, 'send', invoice.status);
    const customer = await customers.getCustomer(invoice, invoice.customer_id);
    if (!customer) throw new ResourceMissing('customer_id');
    const to = channel === 'email' ? customer.email : customer.phone;
    if (!to) throw new BadRequest('customer_has_no_phone', 'channel');
    const op: Operation = { id: newId('operation'), kind: 'invoice_send', lease_until: leaseFromNow(), channel, to };
    return { op, begin: beginOn(invoices.invoiceTarget(invoice), op, { inStates: INVOICE.send.from }) };
  },
  onRefused: async ({ invoice }) => Promise.reject(await refusal(invoice, 'send')),
  call: async (op, { invoice, baseUrl, links }, retried) => {
    const current = retried ? await load(invoice, invoice.id) : invoice;
    if (!(INVOICE.send.from as readonly string[]).includes(current.status)) return { skipped: true };
    const { pdfUrl, payUrl } = links ?? (await linksOf(current, baseUrl));
    const sending = deliver(op.channel as InvoiceChannel, op.to!, invoiceMessage(current, pdfUrl, payUrl));
    // A take-over that fails to send keeps its operation for the reconciler's next run; a first send's ends.
    if (retried) await sending;
    const failed = await sending.then(
      () => undefined,
      (error: unknown) => ({ failed: error }),
    );
    return failed ?? { sent: { current, pdfUrl } };
  },
  record: async (delivery, op, { invoice }) => {
    if ('sent' in delivery) return sent(delivery.sent.current, op, delivery.sent.pdfUrl);
    // Not sent: the operation ends and the invoice stays as it was.
    await finish(invoices.invoiceTarget(invoice), op);
    if ('failed' in delivery) throw delivery.failed;
    return undefined;
  },
};

async function deliver(channel: InvoiceChannel, to: string, message: ReturnType<typeof invoiceMessage>): Promise<void> {
  if (channel === 'email') await emailSender.send({ to, subject: message.subject, text: message.email });
  else await messageSender.send({ channel, to, text: message.short, params: message.params });
}

type SentView = InvoiceView & { status: 'sent'; sent_to: string };

/** The message went out: the invoice moves to `sent` with its event, and the send's operation ends. */
async function sent(invoice: StoredInvoice, op: Operation, pdfUrl: string): Promise<SentView> {
  const changes = { sent_at: isoNow(), sent_to: op.to!, channel: op.channel as InvoiceChannel };
  return (await stepInvoice(invoice, 'send', changes, pdfUrl, op.id)) as SentView;
}

/** The reconciler's part for invoice sends: a send whose run died (its lease ended) is taken over and finished. */
export const reconcileInvoiceSend = (invoice: StoredInvoice & { op: Operation }, baseUrl?: string): Promise<SentView | undefined> =>
  takeOverOperation(invoiceSend, { invoice, baseUrl });
