import { createPaymentLink } from '../../shared/domain/payment-link-admin.ts';
import { http } from '../../shared/http/index.ts';
import { CreatePaymentLinkBody } from '../../shared/schemas/payment-links.ts';
import { PaymentLink } from '../../shared/schemas/responses/payment-links.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:write', body: CreatePaymentLinkBody, idempotent: true, response: PaymentLink },
  async ({ merchant, body, baseUrl, origin }) => createPaymentLink(merchant, body, baseUrl, origin),
);
