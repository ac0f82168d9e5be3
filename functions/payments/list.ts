import { listPayments } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';
import { ListPaymentsQuery } from '../../shared/schemas/payments.ts';

export const handler = http({ auth: 'merchant', query: ListPaymentsQuery }, async ({ merchant, query }) =>
  listPayments(merchant, query),
);
