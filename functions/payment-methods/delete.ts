import { deletePaymentMethod } from '../../shared/domain/payment-method-deletion.ts';
import { http } from '../../shared/http/index.ts';
import { DeletedPaymentMethod } from '../../shared/schemas/responses/payment-methods.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:write', params: { id: 'paymentMethod' }, response: DeletedPaymentMethod },
  async ({ merchant, params }) => deletePaymentMethod(merchant, params.id),
);
