import { changeSettings } from '../../shared/domain/settings.ts';
import { http } from '../../shared/http/index.ts';
import { Settings } from '../../shared/schemas/responses/accounts.ts';
import { UpdateSettingsBody } from '../../shared/schemas/settings.ts';

export const handler = http(
  { auth: 'merchant', permission: 'settings:write', body: UpdateSettingsBody, response: Settings },
  async ({ merchant, body }) => changeSettings(merchant, body),
);
