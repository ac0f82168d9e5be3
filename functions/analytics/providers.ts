import { providers } from '../../shared/domain/analytics.ts';
import { http } from '../../shared/http/index.ts';
import { AnalyticsQuery } from '../../shared/schemas/reports.ts';
import { ProviderReport } from '../../shared/schemas/responses/reports.ts';

export const handler = http(
  { auth: 'merchant', permission: 'analytics:read', query: AnalyticsQuery, response: ProviderReport },
  async ({ merchant, query }) => providers(merchant, query),
);
