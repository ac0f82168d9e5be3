import { voidPayment } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'payment' }, idempotent: true }, async ({ merchant, params }) =>
  voidPayment(merchant, params.id),
);
