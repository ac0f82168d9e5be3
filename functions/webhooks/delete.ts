import { deleteWebhook } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';
import { DeletedWebhook } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:write', params: { id: 'webhook' }, response: DeletedWebhook },
  async ({ merchant, params }) => deleteWebhook(merchant, params.id),
);
