import { getCustomer } from '../../shared/domain/customers.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'customer' } }, async ({ merchant, params }) =>
  getCustomer(merchant.id, params.id),
);
