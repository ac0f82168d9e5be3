import { detachPaymentMethod } from '../../shared/domain/payment-methods.ts';
import { http } from '../../shared/http/index.ts';
import { PaymentMethod } from '../../shared/schemas/responses/payment-methods.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:write', params: { id: 'paymentMethod' }, idempotent: true, response: PaymentMethod },
  async ({ merchant, params }) => detachPaymentMethod(merchant, params.id),
);
