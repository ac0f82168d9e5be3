import { listInvoices } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';
import { ListInvoicesQuery } from '../../shared/schemas/invoices.ts';
import { InvoiceList } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:read', query: ListInvoicesQuery, response: InvoiceList },
  async ({ merchant, query, baseUrl }) => listInvoices(merchant, query, baseUrl),
);
