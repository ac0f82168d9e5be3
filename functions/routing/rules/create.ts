import { createRoutingRule } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';
import { CreateRoutingRuleBody } from '../../../shared/schemas/routing-rules.ts';
import { RoutingRule } from '../../../shared/schemas/responses/payments.ts';

export const handler = http(
  { auth: 'merchant', permission: 'routing:write', body: CreateRoutingRuleBody, idempotent: true, response: RoutingRule },
  async ({ merchant, body, origin }) => createRoutingRule(merchant, body, origin),
);
