import { listWebhooks } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { ListWebhooksQuery } from '../../shared/schemas/webhooks.ts';
import { WebhookList } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:read', query: ListWebhooksQuery, response: WebhookList },
  async ({ merchant, query }) => listWebhooks(merchant, query),
);
