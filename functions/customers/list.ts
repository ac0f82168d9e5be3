import { listCustomers } from '../../shared/domain/customers.ts';
import { http } from '../../shared/http/index.ts';
import { ListCustomersQuery } from '../../shared/schemas/customers.ts';
import { CustomerList } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'customers:read', query: ListCustomersQuery, response: CustomerList },
  async ({ merchant, query }) => listCustomers(merchant, query),
);
