import { listPayments } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';
import { ListPaymentsQuery } from '../../shared/schemas/payments.ts';
import { PaymentList } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:read', query: ListPaymentsQuery, response: PaymentList },
  async ({ merchant, query }) => listPayments(merchant, query),
);
