import { updatePayment } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';
import { UpdatePaymentBody } from '../../shared/schemas/payments.ts';
import { Payment } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:write', params: { id: 'payment' }, body: UpdatePaymentBody, response: Payment },
  async ({ merchant, params, body }) => updatePayment(merchant, params.id, body),
);
