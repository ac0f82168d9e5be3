import { getBalance } from '../../shared/domain/balance.ts';
import { http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'merchant' }, async ({ merchant }) => getBalance(merchant.id));
