import { getWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { Webhook } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:read', params: { id: 'webhook' }, response: Webhook },
  async ({ merchant, params }) => getWebhook(merchant, params.id),
);
