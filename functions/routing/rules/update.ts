import { updateRoutingRule } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';
import { UpdateRoutingRuleBody } from '../../../shared/schemas/routing-rules.ts';
import { RoutingRule } from '../../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'routing:write', params: { id: 'rule' }, body: UpdateRoutingRuleBody, response: RoutingRule },
  async ({ merchant, params, body }) => updateRoutingRule(merchant, params.id, body),
);
