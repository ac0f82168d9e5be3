import { reconcileConnector } from '../../shared/domain/reconciliation.ts';
import { http } from '../../shared/http/index.ts';
import { ReconciliationRun } from '../../shared/schemas/responses/reconciliation.ts';

export const handler = http(
  { auth: 'merchant', permission: 'connectors:write', params: { id: 'connector' }, idempotent: true, response: ReconciliationRun, errors: [500] },
  async ({ merchant, params }) => reconcileConnector(merchant, params.id),
);
