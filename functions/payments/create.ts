import { createPayment } from '../../shared/domain/payment-create.ts';
import { http } from '../../shared/http/index.ts';
import { CreatePaymentBody } from '../../shared/schemas/payments.ts';
import { Payment } from '../../shared/schemas/responses/payments.ts';
import { config } from '../../shared/config.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'payments:write',
    body: CreatePaymentBody,
    idempotent: true,
    rateLimit: { name: 'payments-create', limit: config.PAYMENTS_PER_MINUTE, per: 'merchant', concurrent: true },
    response: Payment,
    errors: [402, 500],
  },
  async ({ merchant, body, origin, admitted, baseUrl }) => createPayment(merchant, body, origin, admitted, baseUrl),
);
