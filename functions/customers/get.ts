import { getCustomer } from '../../shared/domain/customers.ts';
import { http } from '../../shared/http/index.ts';
import { Customer } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:read', params: { id: 'customer' }, response: Customer },
  async ({ merchant, params }) => getCustomer(merchant, params.id),
);
