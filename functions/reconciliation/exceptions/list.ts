import { listExceptions } from '../../../shared/domain/reconciliation-exceptions.ts';
import { http } from '../../../shared/http/index.ts';
import { ListExceptionsQuery } from '../../../shared/schemas/reconciliation.ts';
import { ReconciliationExceptionList } from '../../../shared/schemas/responses/reconciliation.ts';

export const handler = http(
  { auth: 'merchant', permission: 'finance:read', query: ListExceptionsQuery, response: ReconciliationExceptionList },
  async ({ merchant, query: { kind, connector_id, status, ...page } }) => listExceptions(merchant, { kind, connector_id, status }, page),
);
