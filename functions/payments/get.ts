import { getPayment } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'payment' } }, async ({ merchant, params }) =>
  getPayment(merchant, params.id),
);
