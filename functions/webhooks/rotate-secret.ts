import { rotateWebhookSecret } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { RotatedWebhook } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:write', params: { id: 'webhook' }, idempotent: { withhold: ['secret'] }, response: RotatedWebhook },
  async ({ merchant, params }) => rotateWebhookSecret(merchant, params.id),
);
