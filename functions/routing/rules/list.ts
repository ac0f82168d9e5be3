import { listRoutingRules } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';
import { RoutingRuleList } from '../../../shared/schemas/responses/payments.ts';
import { ListRoutingRulesQuery } from '../../../shared/schemas/routing-rules.ts';

export const handler = http(
  { auth: 'merchant', permission: 'routing:read', query: ListRoutingRulesQuery, response: RoutingRuleList },
  async ({ merchant, query }) => listRoutingRules(merchant, query),
);
