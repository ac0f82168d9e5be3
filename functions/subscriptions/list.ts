import { listSubscriptions } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';
import { ListSubscriptionsQuery } from '../../shared/schemas/subscriptions.ts';
import { SubscriptionList } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:read', query: ListSubscriptionsQuery, response: SubscriptionList },
  async ({ merchant, query }) => listSubscriptions(merchant, query),
);
