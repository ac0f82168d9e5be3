import { resolveException } from '../../../shared/domain/reconciliation-exceptions.ts';
import { http } from '../../../shared/http/index.ts';
import { ResolveExceptionBody } from '../../../shared/schemas/reconciliation.ts';
import { ReconciliationException } from '../../../shared/schemas/responses/reconciliation.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'finance:write',
    params: { id: 'reconciliationException' },
    body: ResolveExceptionBody,
    idempotent: true,
    response: ReconciliationException,
  },
  async ({ merchant, params, body }) => resolveException(merchant, params.id, body),
);
