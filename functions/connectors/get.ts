import { getConnector } from '../../shared/domain/connectors.ts';
import { http } from '../../shared/http/index.ts';
import { Connector } from '../../shared/schemas/responses/connectors.ts';

export const handler = http(
  { auth: 'merchant', permission: 'connectors:read', params: { id: 'connector' }, response: Connector },
  async ({ merchant, params, baseUrl }) => getConnector(merchant, params.id, baseUrl),
);
