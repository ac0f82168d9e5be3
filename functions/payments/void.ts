import { voidPayment } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';
import { Payment } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:write', params: { id: 'payment' }, idempotent: true, response: Payment, errors: [500] },
  async ({ merchant, params, origin }) => voidPayment(merchant, params.id, origin),
);
