import { getRoutingRule } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';
import { RoutingRule } from '../../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'routing:read', params: { id: 'rule' }, response: RoutingRule },
  async ({ merchant, params }) => getRoutingRule(merchant, params.id),
);
