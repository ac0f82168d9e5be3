import { listConnectorsPage } from '../../shared/domain/connectors.ts';
import { http } from '../../shared/http/index.ts';
import { ListConnectorsQuery } from '../../shared/schemas/connectors.ts';
import { ConnectorList } from '../../shared/schemas/responses/connectors.ts';

export const handler = http(
  { auth: 'merchant', permission: 'connectors:read', query: ListConnectorsQuery, response: ConnectorList },
  async ({ merchant, query, baseUrl }) => listConnectorsPage(merchant, query, baseUrl),
);
