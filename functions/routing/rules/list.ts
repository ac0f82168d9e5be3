import { listRoutingRules } from '../../../shared/domain/routing-rules.ts';
import { http } from '../../../shared/http/index.ts';

export const handler = http({ auth: 'merchant' }, async ({ merchant }) => listRoutingRules(merchant.id));
