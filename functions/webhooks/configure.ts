import { configureWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { ConfigureWebhookBody } from '../../shared/schemas/webhooks.ts';
import { NewWebhook } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:write', body: ConfigureWebhookBody, idempotent: { withhold: ['secret'] }, response: NewWebhook },
  async ({ merchant, body, origin }) => configureWebhook(merchant, body, origin),
);
