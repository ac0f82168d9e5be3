import { listSubscriptions } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';
import { ListSubscriptionsQuery } from '../../shared/schemas/subscriptions.ts';

export const handler = http({ auth: 'merchant', query: ListSubscriptionsQuery }, async ({ merchant, query }) =>
  listSubscriptions(merchant, query),
);
