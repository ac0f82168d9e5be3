import { getPaymentMethod } from '../../shared/domain/payment-methods.ts';
import { http } from '../../shared/http/index.ts';
import { PaymentMethod } from '../../shared/schemas/responses/payment-methods.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:read', params: { id: 'paymentMethod' }, response: PaymentMethod },
  async ({ merchant, params }) => getPaymentMethod(merchant, params.id),
);
