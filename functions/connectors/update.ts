import { updateConnector } from '../../shared/domain/connectors.ts';
import { http } from '../../shared/http/index.ts';
import { UpdateConnectorBody } from '../../shared/schemas/connectors.ts';
import { Connector } from '../../shared/schemas/responses/connectors.ts';

export const handler = http(
  { auth: 'merchant', permission: 'connectors:write', params: { id: 'connector' }, body: UpdateConnectorBody, response: Connector },
  async ({ merchant, params, body, baseUrl }) => updateConnector(merchant, params.id, body, baseUrl),
);
