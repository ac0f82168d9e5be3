import { listAuditLog } from '../../shared/domain/audit-log.ts';
import { http } from '../../shared/http/index.ts';
import { ListAuditLogQuery } from '../../shared/schemas/audit-log.ts';
import { AuditLog } from '../../shared/schemas/responses/audit-log.ts';

export const handler = http(
  { auth: 'merchant', permission: 'audit_log:read', query: ListAuditLogQuery, response: AuditLog },
  async ({ merchant, query }) => listAuditLog(merchant, query, query),
);
