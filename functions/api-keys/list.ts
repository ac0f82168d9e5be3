import { listApiKeys } from '../../shared/domain/api-keys.ts';
import { http } from '../../shared/http/index.ts';
import { ListApiKeysQuery } from '../../shared/schemas/api-keys.ts';

export const handler = http({ auth: 'merchant', query: ListApiKeysQuery }, async ({ merchant, query }) =>
  listApiKeys(merchant.id, query),
);
