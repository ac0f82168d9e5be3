import { listWebhooks } from '../../shared/domain/webhooks.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant' }, async ({ merchant }) => listWebhooks(merchant.id));
