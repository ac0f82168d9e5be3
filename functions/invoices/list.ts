import { listInvoices } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';
import { ListInvoicesQuery } from '../../shared/schemas/invoices.ts';

export const handler = http({ auth: 'merchant', query: ListInvoicesQuery }, async ({ merchant, query, baseUrl }) =>
  listInvoices(merchant.id, query, baseUrl),
);
