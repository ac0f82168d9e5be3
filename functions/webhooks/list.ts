import { listWebhooks } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { WebhookList } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http({ auth: 'merchant', response: WebhookList }, async ({ merchant }) => listWebhooks(merchant.id));
