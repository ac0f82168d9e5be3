import { listPaymentMethods } from '../../shared/domain/payment-methods.ts';
import { http } from '../../shared/http/index.ts';
import { ListPaymentMethodsQuery } from '../../shared/schemas/payment-methods.ts';
import { PaymentMethodList } from '../../shared/schemas/responses/payment-methods.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:read', query: ListPaymentMethodsQuery, response: PaymentMethodList },
  async ({ merchant, query }) => listPaymentMethods(merchant, query),
);
