import { getInvoice } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'invoice' } }, async ({ merchant, params, baseUrl }) =>
  getInvoice(merchant.id, params.id, baseUrl),
);
