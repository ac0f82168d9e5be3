import { deleteCustomer } from '../../shared/domain/customers.ts';
import { http } from '../../shared/http/index.ts';
import { DeletedCustomer } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:write', params: { id: 'customer' }, response: DeletedCustomer },
  async ({ merchant, params }) => deleteCustomer(merchant, params.id),
);
