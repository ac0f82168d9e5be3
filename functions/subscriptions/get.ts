import { getSubscription } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';
import { Subscription } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:read', params: { id: 'subscription' }, response: Subscription },
  async ({ merchant, params }) => getSubscription(merchant, params.id),
);
