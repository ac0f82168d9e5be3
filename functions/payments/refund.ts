import { refundPayment } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';
import { RefundBody } from '../../shared/schemas/payments.ts';

export const handler = http(
  { auth: 'merchant', params: { id: 'payment' }, body: RefundBody, idempotent: true },
  async ({ merchant, params, body }) => refundPayment(merchant, params.id, body),
);
