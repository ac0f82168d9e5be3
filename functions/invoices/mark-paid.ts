import { markInvoicePaid } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';
import { PaidInvoice } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:write', params: { id: 'invoice' }, response: PaidInvoice },
  async ({ merchant, params, baseUrl }) => markInvoicePaid(merchant, params.id, undefined, baseUrl),
);
