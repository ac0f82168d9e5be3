import { sendInvoice } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';
import { SendInvoiceBody } from '../../shared/schemas/invoices.ts';

export const handler = http(
  { auth: 'merchant', params: { id: 'invoice' }, body: SendInvoiceBody },
  async ({ merchant, params, body, baseUrl }) => sendInvoice(merchant.id, params.id, body.channel, baseUrl),
);
