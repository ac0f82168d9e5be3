import { listPaymentLinks } from '../../shared/domain/payment-link-admin.ts';
import { http } from '../../shared/http/index.ts';
import { ListPaymentLinksQuery } from '../../shared/schemas/payment-links.ts';
import { PaymentLinkList } from '../../shared/schemas/responses/payment-links.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:read', query: ListPaymentLinksQuery, response: PaymentLinkList },
  async ({ merchant, query, baseUrl }) => listPaymentLinks(merchant, query, baseUrl),
);
