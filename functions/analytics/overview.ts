import { overview } from '../../shared/domain/analytics.ts';
import { http } from '../../shared/http/index.ts';
import { AnalyticsQuery } from '../../shared/schemas/reports.ts';
import { AnalyticsOverview } from '../../shared/schemas/responses/reports.ts';

export const handler = http(
  { auth: 'merchant', permission: 'analytics:read', query: AnalyticsQuery, response: AnalyticsOverview },
  async ({ merchant, query }) => overview(merchant, query),
);
