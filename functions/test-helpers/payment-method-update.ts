import { updateTestCard } from '../../shared/domain/card-updates.ts';
import { http } from '../../shared/http/index.ts';
import { UpdateTestCardBody } from '../../shared/schemas/payment-methods.ts';
import { PaymentMethod } from '../../shared/schemas/responses/payment-methods.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'test_clocks:write',
    params: { id: 'paymentMethod' },
    body: UpdateTestCardBody,
    idempotent: true,
    response: PaymentMethod,
  },
  async ({ merchant, params, body }) => updateTestCard(merchant, params.id, body),
);
