import { getEvent } from '../../shared/domain/event-log.ts';
import { http } from '../../shared/http/index.ts';
import { WebhookEventDetail } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http({ auth: 'merchant', permission: 'webhooks:read', params: { id: 'event' }, response: WebhookEventDetail }, async ({ merchant, params }) =>
  getEvent(merchant, params.id),
);
