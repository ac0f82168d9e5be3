import { updateCustomer } from '../../shared/domain/customers.ts';
import { http } from '../../shared/http/index.ts';
import { UpdateCustomerBody } from '../../shared/schemas/customers.ts';
import { Customer } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:write', params: { id: 'customer' }, body: UpdateCustomerBody, response: Customer },
  async ({ merchant, params, body }) => updateCustomer(merchant, params.id, body),
);
