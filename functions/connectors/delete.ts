import { deleteConnector } from '../../shared/domain/connectors.ts';
import { http } from '../../shared/http/index.ts';
import { DeletedConnector } from '../../shared/schemas/responses/connectors.ts';

export const handler = http(
  { auth: 'merchant', permission: 'connectors:write', params: { id: 'connector' }, response: DeletedConnector },
  async ({ merchant, params }) => deleteConnector(merchant, params.id),
);
