import { getSettlement } from '../../shared/domain/settlements.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'settlement' } }, async ({ merchant, params }) =>
  getSettlement(merchant.id, params.id),
);
