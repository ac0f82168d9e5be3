import { getDispute } from '../../shared/domain/disputes.ts';
import { http } from '../../shared/http/index.ts';
import { Dispute } from '../../shared/schemas/responses/disputes.ts';

export const handler = http(
  { auth: 'merchant', permission: 'disputes:read', params: { id: 'dispute' }, response: Dispute },
  async ({ merchant, params }) => getDispute(merchant, params.id),
);
