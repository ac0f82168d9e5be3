import { updateWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { UpdateWebhookBody } from '../../shared/schemas/webhooks.ts';
import { Webhook } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:write', params: { id: 'webhook' }, body: UpdateWebhookBody, response: Webhook },
  async ({ merchant, params, body }) => updateWebhook(merchant, params.id, body),
);
