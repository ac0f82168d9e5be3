import { updateSubscription } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';
import { UpdateSubscriptionBody } from '../../shared/schemas/subscriptions.ts';
import { Subscription } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:write', params: { id: 'subscription' }, body: UpdateSubscriptionBody, response: Subscription },
  async ({ merchant, params, body }) => updateSubscription(merchant, params.id, body),
);
