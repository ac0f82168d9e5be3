import { refundPayment } from '../../shared/domain/refund-operation.ts';
import { http } from '../../shared/http/index.ts';
import { RefundBody } from '../../shared/schemas/payments.ts';
import { Refund } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:write', params: { id: 'payment' }, body: RefundBody, idempotent: true, response: Refund, errors: [500] },
  async ({ merchant, params, body, origin }) => refundPayment(merchant, params.id, body, origin),
);
