import { listApiKeys } from '../../shared/domain/api-keys.ts';
import { http } from '../../shared/http/index.ts';
import { ListApiKeysQuery } from '../../shared/schemas/api-keys.ts';
import { ApiKeyList } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'api_keys:read', query: ListApiKeysQuery, response: ApiKeyList },
  async ({ merchant, query }) => listApiKeys(merchant, query),
);
