import { listDeliveries } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { ListWebhookEventsQuery } from '../../shared/schemas/webhooks.ts';
import { WebhookEventList } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:read', query: ListWebhookEventsQuery, response: WebhookEventList },
  async ({ merchant, query }) => listDeliveries(merchant, query),
);
