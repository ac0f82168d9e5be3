import { createRoutingRule } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';
import { CreateRoutingRuleBody } from '../../../shared/schemas/routing-rules.ts';

export const handler = http({ auth: 'merchant', body: CreateRoutingRuleBody, idempotent: true }, async ({ merchant, body }) =>
  createRoutingRule(merchant.id, body),
);
