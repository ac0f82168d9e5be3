import { createSubscription } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';
import { CreateSubscriptionBody } from '../../shared/schemas/subscriptions.ts';

export const handler = http({ auth: 'merchant', body: CreateSubscriptionBody, idempotent: true }, async ({ merchant, body }) =>
  createSubscription(merchant, body),
);
