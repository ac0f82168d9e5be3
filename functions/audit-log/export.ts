import { AUDIT_EXPORT_TYPE, exportAuditLog } from '../../shared/domain/audit-log.ts';
import { FileBody, http } from '../../shared/http/index.ts';
import { ExportAuditLogQuery } from '../../shared/schemas/audit-log.ts';

/** The audit log in a time range as JSON Lines, one entry per line, for a security review or a SIEM. */
export const handler = http(
  { auth: 'merchant', permission: 'audit_log:read', query: ExportAuditLogQuery, file: AUDIT_EXPORT_TYPE },
  async ({ merchant, query }) => {
    const lines = await exportAuditLog(merchant, query);
    return new FileBody(AUDIT_EXPORT_TYPE, new TextEncoder().encode(lines), { 'Cache-Control': 'private, no-store' });
  },
);
