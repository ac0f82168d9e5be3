import { getPaymentLink } from '../../shared/domain/payment-link-admin.ts';
import { http } from '../../shared/http/index.ts';
import { PaymentLink } from '../../shared/schemas/responses/payment-links.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:read', params: { id: 'paymentLink' }, response: PaymentLink },
  async ({ merchant, params, baseUrl }) => getPaymentLink(merchant, params.id, baseUrl),
);
