import { emailSender } from '../messaging/email.ts';
import { messageSender } from '../messaging/messages.ts';
import type { Operation } from '../model/targets.ts';
import * as customers from '../store/customers.ts';
import * as invoices from '../store/invoices.ts';
import type { InvoiceRecord, StoredInvoice } from '../store/invoices.ts';
import { clock, isoNow } from '../model/clock.ts';
import { beginOn, finish, leaseFromNow, runOperation } from './operations.ts';
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
  let invoice = await load(ownerOf(merchant), invoiceId);
  // A send whose run died holds the invoice: it is finished first (sent again, at least once), never overwritten.
  if (invoice.op && invoice.op.lease_until < clock.now()) {
    const finished = await reconcileInvoiceSend(invoice as StoredInvoice & { op: Operation }, baseUrl);
    if (finished) return finished;
    invoice = await load(ownerOf(merchant), invoiceId);
  }
  const { from } = transition('invoice', INVOICE, 'send', invoice.status);
  const customer = await customers.getCustomer(invoice, invoice.customer_id);
  if (!customer) throw new ResourceMissing('customer_id');
  const to = channel === 'email' ? customer.email : customer.phone;
  if (!to) throw new BadRequest('customer_has_no_phone', 'channel');
  const [pdfUrl, payUrl] = await Promise.all([pdfUrlOf(invoice.id, baseUrl), payUrlOf(invoice.id, baseUrl)]);
  if (!pdfUrl || !payUrl) throw new Error('No public base URL to link the invoice PDF from');

  // Begun before the message goes out: a racing mark-paid (or send) is refused instead of following it.
  const message = invoiceMessage(invoice, pdfUrl, payUrl);
  const op: Operation = { id: newId('operation'), kind: 'invoice_send', lease_until: leaseFromNow(), channel, to };
  const target = invoices.invoiceTarget(invoice);
  return runOperation({
    start: { op, begin: beginOn(target, op, { inStates: from }), refused: async () => Promise.reject(await refusal(invoice, 'send')) },
    call: () =>
      deliver(channel, to, message).then(
        () => undefined,
        (error: unknown) => error,
      ),
    record: async (error) => {
      if (error === undefined) return sent(invoice, op, pdfUrl);
      // Not sent: the operation ends and the invoice stays as it was.
      await finish(target, op);
      throw error;
    },
  });
}

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

/**
 * The reconciler's part for invoice sends: a send whose run died (its lease ended) is taken over and finished.
 * Nobody knows whether its message went out (a message service takes no idempotency key), so it is sent again:
 * at least once. A customer may get the invoice twice, never not at all; a send charges nothing, so nobody pays
 * twice. An invoice that was paid meanwhile (mark-paid after the lease ended) is not sent again; the operation ends.
 */
export async function reconcileInvoiceSend(invoice: StoredInvoice & { op: Operation }, baseUrl?: string): Promise<SentView | undefined> {
  const target = invoices.invoiceTarget(invoice);
  return runOperation({
    start: { op: invoice.op, takeOver: target },
    call: async (op) => {
      const current = await load(invoice, invoice.id);
      if (!(INVOICE.send.from as readonly string[]).includes(current.status)) return undefined;
      const [pdfUrl, payUrl] = await Promise.all([pdfUrlOf(current.id, baseUrl), payUrlOf(current.id, baseUrl)]);
      if (!pdfUrl || !payUrl) throw new Error('No public base URL to link the invoice PDF from');
      await deliver(op.channel as InvoiceChannel, op.to!, invoiceMessage(current, pdfUrl, payUrl));
      return { current, pdfUrl };
    },
    record: async (delivered, op) => {
      if (delivered) return sent(delivered.current, op, delivered.pdfUrl);
      await finish(target, op);
      return undefined;
    },
  });
}
