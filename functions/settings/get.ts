import { readSettings } from '../../shared/domain/settings.ts';
import { http } from '../../shared/http/index.ts';
import { Settings } from '../../shared/schemas/responses/accounts.ts';

export const handler = http({ auth: 'merchant', response: Settings }, async ({ merchant }) => readSettings(merchant));
