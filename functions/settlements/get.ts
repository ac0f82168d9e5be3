import { getSettlement } from '../../shared/domain/settlements.ts';
import { http } from '../../shared/http/index.ts';
import { Settlement } from '../../shared/schemas/responses/reports.ts';

export const handler = http(
  { auth: 'merchant', permission: 'finance:read', params: { id: 'settlement' }, response: Settlement },
  async ({ merchant, params }) => getSettlement(merchant, params.id),
);
