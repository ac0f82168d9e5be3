import { deleteRoutingRule } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';
import { DeletedRoutingRule } from '../../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'routing:write', params: { id: 'rule' }, response: DeletedRoutingRule },
  async ({ merchant, params }) => deleteRoutingRule(merchant, params.id),
);
