import { invoicePdfFromLink } from '../../shared/domain/invoice-pdf.ts';
import { FileBody, http } from '../../shared/http/index.ts';
import { PdfLinkQuery } from '../../shared/schemas/invoices.ts';

/** The customer's signed link: no API key; answers the PDF itself, or the documented 404 for a bad or expired link. */
export const handler = http(
  { auth: 'public', params: { id: 'invoice' }, query: PdfLinkQuery, file: 'application/pdf' },
  async ({ params, query }) => {
    const { filename, pdf } = await invoicePdfFromLink(params.id, query);
    return new FileBody('application/pdf', pdf, {
      'Content-Disposition': `inline; filename="${filename}"`,
      // The PDF changes (PAID) and the link is a credential: no shared caches.
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  },
);
