import { recovery } from '../../shared/domain/analytics.ts';
import { http } from '../../shared/http/index.ts';
import { AnalyticsQuery } from '../../shared/schemas/reports.ts';
import { RecoveryReport } from '../../shared/schemas/responses/reports.ts';

export const handler = http(
  { auth: 'merchant', permission: 'analytics:read', query: AnalyticsQuery, response: RecoveryReport },
  async ({ merchant, query }) => recovery(merchant, query),
);
