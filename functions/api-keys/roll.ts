import { rollApiKey } from '../../shared/domain/api-keys.ts';
import { http } from '../../shared/http/index.ts';
import { RollApiKeyBody } from '../../shared/schemas/api-keys.ts';
import { NewApiKey } from '../../shared/schemas/responses/accounts.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'api_keys:write',
    params: { id: 'apiKey' },
    body: RollApiKeyBody,
    idempotent: { withhold: ['key'] },
    response: NewApiKey,
  },
  async ({ merchant, params, body, origin }) => rollApiKey(merchant, params.id, body, origin),
);
