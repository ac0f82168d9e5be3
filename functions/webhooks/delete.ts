import { deleteWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'webhook' } }, async ({ merchant, params }) =>
  deleteWebhook(merchant.id, params.id),
);
