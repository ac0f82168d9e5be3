import { getTestClock } from '../../shared/domain/test-clocks.ts';
import { http } from '../../shared/http/index.ts';
import { TestClock } from '../../shared/schemas/responses/test-clocks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'test_clocks:read', params: { id: 'testClock' }, response: TestClock },
  async ({ merchant, params }) => getTestClock(merchant, params.id),
);
