import { acceptDispute } from '../../shared/domain/disputes.ts';
import { http } from '../../shared/http/index.ts';
import { Dispute } from '../../shared/schemas/responses/disputes.ts';

export const handler = http(
  { auth: 'merchant', permission: 'disputes:write', params: { id: 'dispute' }, idempotent: true, response: Dispute },
  async ({ merchant, params, origin }) => acceptDispute(merchant, params.id, origin),
);
