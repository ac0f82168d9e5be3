import { listRoutingRules } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';
import { RoutingRuleList } from '../../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', response: RoutingRuleList },
  async ({ merchant }) => listRoutingRules(merchant.id),
);
