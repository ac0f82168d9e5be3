import { testWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { TestWebhookBody } from '../../shared/schemas/webhooks.ts';

export const handler = http({ auth: 'merchant', body: TestWebhookBody }, async ({ merchant, body }) => testWebhook(merchant.id, body));
