import { getInvoice } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';
import { Invoice } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:read', params: { id: 'invoice' }, response: Invoice },
  async ({ merchant, params, baseUrl }) => getInvoice(merchant, params.id, baseUrl),
);
