import { issueApiKey } from '../../shared/domain/api-keys.ts';
import { http } from '../../shared/http/index.ts';
import { CreateApiKeyBody } from '../../shared/schemas/api-keys.ts';
import { NewApiKey } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  { auth: 'merchant', permission: 'api_keys:write', body: CreateApiKeyBody, idempotent: { withhold: ['key'] }, response: NewApiKey },
  async ({ merchant, body, origin }) => issueApiKey(merchant, body, origin),
);
