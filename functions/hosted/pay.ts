import { payPage } from '../../shared/domain/payment-links.ts';
import { pdfUrlOf } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';
import { payPageAnswer } from '../../shared/hosted/pay-page.ts';
import { PayLinkQuery } from '../../shared/schemas/hosted.ts';

/** The customer's page for paying an invoice (signed link): reading it changes nothing. */
export const handler = http(
  { auth: 'public', params: { id: 'invoice' }, query: PayLinkQuery, file: 'text/html' },
  async ({ params, query, baseUrl }) =>
    payPageAnswer(
      await payPage(params.id, query),
      `${params.id}?expires=${query.expires}&signature=${query.signature}`,
      await pdfUrlOf(params.id, baseUrl),
    ),
);
