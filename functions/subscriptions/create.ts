import { createSubscription } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';
import { CreateSubscriptionBody } from '../../shared/schemas/subscriptions.ts';
import { Subscription } from '../../shared/schemas/responses/billing.ts';

export const handler = http(
  { auth: 'merchant', permission: 'billing:write', body: CreateSubscriptionBody, idempotent: true, response: Subscription },
  async ({ merchant, body, origin }) => createSubscription(merchant, body, origin),
);
