import { sendInvoice } from '../../shared/domain/invoice-delivery.ts';
import { http } from '../../shared/http/index.ts';
import { SendInvoiceBody } from '../../shared/schemas/invoices.ts';
import { SentInvoice } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:write', params: { id: 'invoice' }, body: SendInvoiceBody, response: SentInvoice },
  async ({ merchant, params, body, baseUrl }) => sendInvoice(merchant, params.id, body.channel, baseUrl),
);
