import { listRefunds } from '../../shared/domain/refunds.ts';
import { http } from '../../shared/http/index.ts';
import { ListRefundsQuery } from '../../shared/schemas/payments.ts';
import { RefundList } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:read', query: ListRefundsQuery, response: RefundList },
  async ({ merchant, query }) => listRefunds(merchant, query),
);
