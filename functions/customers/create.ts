import { createCustomer } from '../../shared/domain/customers.ts';
import { http } from '../../shared/http/index.ts';
import { CreateCustomerBody } from '../../shared/schemas/customers.ts';
import { Customer } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:write', body: CreateCustomerBody, idempotent: true, response: Customer },
  async ({ merchant, body, origin }) => createCustomer(merchant, body, origin),
);
