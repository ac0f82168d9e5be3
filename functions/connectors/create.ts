import { createConnector } from '../../shared/domain/connectors.ts';
import { http } from '../../shared/http/index.ts';
import { CreateConnectorBody } from '../../shared/schemas/connectors.ts';
import { Connector } from '../../shared/schemas/responses/connectors.ts';

export const handler = http(
  { auth: 'merchant', permission: 'connectors:write', body: CreateConnectorBody, idempotent: true, response: Connector },
  async ({ merchant, body, baseUrl, origin }) => createConnector(merchant, body, baseUrl, origin),
);
