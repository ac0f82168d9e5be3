import { createCustomer } from '../../shared/domain/customers.ts';
import { http } from '../../shared/http/index.ts';
import { CreateCustomerBody } from '../../shared/schemas/customers.ts';

export const handler = http({ auth: 'merchant', body: CreateCustomerBody, idempotent: true }, async ({ merchant, body }) =>
  createCustomer(merchant.id, body),
);
