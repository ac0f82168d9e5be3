import { listDisputes } from '../../shared/domain/disputes.ts';
import { http } from '../../shared/http/index.ts';
import { ListDisputesQuery } from '../../shared/schemas/disputes.ts';
import { DisputeList } from '../../shared/schemas/responses/disputes.ts';

export const handler = http(
  { auth: 'merchant', permission: 'disputes:read', query: ListDisputesQuery, response: DisputeList },
  async ({ merchant, query }) => listDisputes(merchant, query),
);
