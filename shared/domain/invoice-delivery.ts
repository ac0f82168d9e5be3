import { randomUUID } from 'node:crypto';
import { emailSender } from '../messaging/email.ts';
import { messageSender } from '../messaging/messages.ts';
import { getCustomer } from '../store/customers.ts';
import { claimInvoiceSend, type InvoiceRecord, releaseInvoiceSend } from '../store/invoices.ts';
import { clock, isoNow } from './clock.ts';
import { BadRequest, InvalidState, ResourceMissing } from './errors.ts';
import { type InvoiceChannel, type InvoiceView, load, move, pdfUrlOf } from './invoices.ts';
import { PDF_LINK_TTL_SECONDS } from './signed-links.ts';
import { formatMoney } from './tax.ts';

/*
 * Sending an invoice lives apart from the rest of invoicing so that only the functions that send (invoices/send,
 * the renewal worker) bundle and load the e-mail and messaging clients.
 */

const LINK_DAYS = PDF_LINK_TTL_SECONDS / 86_400;

/** What the customer receives, per channel: the amount in the currency's format and the signed PDF link. */
/** Longer than any sender's timeout (the send function's 10 s, the renewal worker's 30 s): a claim outlives its run. */
const SEND_LEASE_MS = 60_000;

export function invoiceMessage(invoice: InvoiceRecord, pdfUrl: string) {
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
      `Invoice ${invoice.number} (${invoice.id})`,
    ].join('\n'),
    short: `Invoice ${invoice.number} from ${issuer}: ${amount} due ${invoice.due_date}. PDF: ${pdfUrl}`,
    /** WhatsApp template body parameters: {{1}} number, {{2}} amount, {{3}} due date, {{4}} link */
    params: [invoice.number, amount, invoice.due_date, pdfUrl],
  };
}

/**
 * Sends the invoice to the customer over `channel` (e-mail → the customer's e-mail; sms/whatsapp → the customer's
 * phone, 400 `customer_has_no_phone` without one) and moves it to `sent`. Re-sending a sent invoice is allowed;
 * a paid one, or one being sent or marked paid at this moment, answers invalid_state.
 */
export async function sendInvoice(merchantId: string, invoiceId: string, channel: InvoiceChannel, baseUrl: string): Promise<InvoiceView & { status: 'sent'; sent_to: string }> {
  const invoice = await load(merchantId, invoiceId);
  if (invoice.status === 'paid') throw new InvalidState();
  const customer = await getCustomer(merchantId, invoice.customer_id);
  if (!customer) throw new ResourceMissing('customer_id');
  const to = channel === 'email' ? customer.email : customer.phone;
  if (!to) throw new BadRequest('customer_has_no_phone', 'channel');
  const pdfUrl = await pdfUrlOf(invoice.id, baseUrl);
  if (!pdfUrl) throw new Error('No public base URL to link the invoice PDF from');

  // Claimed before the message goes out: a racing mark-paid (or send) is refused instead of following it.
  const message = invoiceMessage(invoice, pdfUrl);
  const claim = randomUUID();
  if (!(await claimInvoiceSend(invoice, ['draft', 'sent'], claim, clock.now(), SEND_LEASE_MS))) throw new InvalidState();
  try {
    if (channel === 'email') await emailSender.send({ to, subject: message.subject, text: message.email });
    else await messageSender.send({ channel, to, text: message.short, params: message.params });
  } catch (error) {
    await releaseInvoiceSend(invoice, claim);
    throw error;
  }

  const changes = { status: 'sent', sent_at: isoNow(), sent_to: to, channel } as const;
  return (await move(invoice, ['draft', 'sent'], changes, 'invoice.sent', pdfUrl, claim)) as InvoiceView & typeof changes;
}

