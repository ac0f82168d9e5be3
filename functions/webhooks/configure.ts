import { configureWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { ConfigureWebhookBody } from '../../shared/schemas/webhooks.ts';

export const handler = http({ auth: 'merchant', body: ConfigureWebhookBody, idempotent: true }, async ({ merchant, body }) =>
  configureWebhook(merchant.id, body),
);
