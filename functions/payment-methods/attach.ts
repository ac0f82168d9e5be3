import { attachPaymentMethod } from '../../shared/domain/payment-methods.ts';
import { http } from '../../shared/http/index.ts';
import { AttachPaymentMethodBody } from '../../shared/schemas/payment-methods.ts';
import { PaymentMethod } from '../../shared/schemas/responses/payment-methods.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'customers:write',
    params: { id: 'paymentMethod' },
    body: AttachPaymentMethodBody,
    idempotent: true,
    response: PaymentMethod,
  },
  async ({ merchant, params, body }) => attachPaymentMethod(merchant, params.id, body.customer_id),
);
