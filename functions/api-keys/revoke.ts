import { revokeApiKey } from '../../shared/domain/api-keys.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant', params: { id: 'apiKey' } }, async ({ merchant, params }) =>
  revokeApiKey(merchant.id, params.id),
);
