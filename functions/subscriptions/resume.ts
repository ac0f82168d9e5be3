import { resumeSubscription } from '../../shared/domain/subscriptions.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'subscription' } }, async ({ merchant, params }) =>
  resumeSubscription(merchant, params.id),
);
