import { getPayment } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';
import { Payment } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:read', params: { id: 'payment' }, response: Payment },
  async ({ merchant, params }) => getPayment(merchant, params.id),
);
