import { testWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { TestWebhookBody } from '../../shared/schemas/webhooks.ts';
import { WebhookTestResult } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:write', body: TestWebhookBody, response: WebhookTestResult },
  async ({ merchant, body }) => testWebhook(merchant, body),
);
