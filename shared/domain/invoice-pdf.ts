/**
 * An invoice's PDF behind its signed link. The renderer (pdf-lib and its fonts, invoice-pdf-render.ts) is loaded on
 * the first render, not at cold start: the link is checked and the invoice read while it loads.
 */
import * as invoices from '../store/invoices.ts';
import { NotFound } from '../model/errors.ts';
import { isId } from '../model/ids.ts';
import { type LinkQuery, verifyPdfLink } from './signed-links.ts';

/**
 * The PDF behind a signed link (the customer's view: no API key). A missing, forged or expired signature, a malformed
 * id and an unknown invoice all answer the same 404; the link is checked before the table is read.
 */
export async function invoicePdfFromLink(invoiceId: string, query: LinkQuery): Promise<{ filename: string; pdf: Uint8Array }> {
  if (!isId('invoice', invoiceId)) throw new NotFound();
  const renderer = import('./invoice-pdf-render.ts');
  if (!(await verifyPdfLink(invoiceId, query))) throw new NotFound();
  const invoice = await invoices.getInvoiceById(invoiceId);
  if (!invoice) throw new NotFound();
  const { renderInvoicePdf } = await renderer;
  return { filename: `${invoice.number}.pdf`, pdf: await renderInvoicePdf(invoice) };
}
