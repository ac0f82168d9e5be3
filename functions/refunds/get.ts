import { getRefund } from '../../shared/domain/refunds.ts';
import { http } from '../../shared/http/index.ts';
import { RefundObject } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:read', params: { id: 'refund' }, response: RefundObject },
  async ({ merchant, params }) => getRefund(merchant, params.id),
);
