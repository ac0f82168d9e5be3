import { revokeApiKey } from '../../shared/domain/api-keys.ts';
import { http } from '../../shared/http/index.ts';
import { ApiKey } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'api_keys:write', params: { id: 'apiKey' }, response: ApiKey },
  async ({ merchant, params }) => revokeApiKey(merchant, params.id),
);
