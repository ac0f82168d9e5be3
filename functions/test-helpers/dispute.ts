import { openTestDispute } from '../../shared/domain/disputes.ts';
import { http } from '../../shared/http/index.ts';
import { OpenTestDisputeBody } from '../../shared/schemas/disputes.ts';
import { TestDisputeRequest } from '../../shared/schemas/responses/disputes.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'test_clocks:write',
    params: { id: 'payment' },
    body: OpenTestDisputeBody,
    idempotent: true,
    response: TestDisputeRequest,
  },
  async ({ merchant, params, body }) => openTestDispute(merchant, params.id, body),
);
