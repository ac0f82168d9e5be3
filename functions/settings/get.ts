import { readSettings } from '../../shared/domain/settings.ts';
import { http } from '../../shared/http/index.ts';
import { Settings } from '../../shared/schemas/responses/accounts.ts';

export const handler = http({ auth: 'merchant', permission: 'settings:read', response: Settings }, async ({ merchant }) => readSettings(merchant));
