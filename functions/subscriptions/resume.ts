import { resumeSubscription } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';
import { Subscription } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:write', params: { id: 'subscription' }, response: Subscription },
  async ({ merchant, params }) => resumeSubscription(merchant, params.id),
);
