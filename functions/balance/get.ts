import { getBalance } from '../../shared/domain/balance.ts';
import { http } from '../../shared/http/index.ts';
import { Balance } from '../../shared/schemas/responses/reports.ts';

export const handler = http({ auth: 'merchant', permission: 'finance:read', response: Balance }, async ({ merchant }) => getBalance(merchant));
