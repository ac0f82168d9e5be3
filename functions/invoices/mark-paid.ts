import { markInvoicePaid } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'invoice' } }, async ({ merchant, params, baseUrl }) =>
  markInvoicePaid(merchant.id, params.id, undefined, baseUrl),
);
