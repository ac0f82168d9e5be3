import { createInvoice } from '../../shared/domain/invoices.ts';
import { http } from '../../shared/http/index.ts';
import { CreateInvoiceBody } from '../../shared/schemas/invoices.ts';
import { Invoice } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:write', body: CreateInvoiceBody, idempotent: true, response: Invoice },
  async ({ merchant, body, baseUrl, origin }) => createInvoice(merchant, body, baseUrl, origin),
);
