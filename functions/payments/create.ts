import { createPayment } from '../../shared/domain/payments.ts';
import { http } from '../../shared/http/index.ts';
import { CreatePaymentBody } from '../../shared/schemas/payments.ts';

export const handler = http(
  {
    auth: 'merchant',
    body: CreatePaymentBody,
    idempotent: true,
    rateLimit: { name: 'payments-create', limit: 100, per: 'merchant' },
  },
  async ({ merchant, body }) => createPayment(merchant, body),
);
