import { listSettlements } from '../../shared/domain/settlements.ts';
import { http } from '../../shared/http/index.ts';
import { ListSettlementsQuery } from '../../shared/schemas/reports.ts';
import { SettlementList } from '../../shared/schemas/responses/reports.ts';

export const handler = http(
  { auth: 'merchant', permission: 'finance:read', query: ListSettlementsQuery, response: SettlementList },
  async ({ merchant, query }) => listSettlements(merchant, query.status, query),
);
