import { deleteTestClock } from '../../shared/domain/test-clocks.ts';
import { http } from '../../shared/http/index.ts';
import { DeletedTestClock } from '../../shared/schemas/responses/test-clocks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'test_clocks:write', params: { id: 'testClock' }, response: DeletedTestClock },
  async ({ merchant, params }) => deleteTestClock(merchant, params.id),
);
