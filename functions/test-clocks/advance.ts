import { advanceTestClock } from '../../shared/domain/test-clocks.ts';
import { http } from '../../shared/http/index.ts';
import { AdvanceTestClockBody } from '../../shared/schemas/test-clocks.ts';
import { TestClock } from '../../shared/schemas/responses/test-clocks.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'test_clocks:write',
    params: { id: 'testClock' },
    body: AdvanceTestClockBody,
    idempotent: true,
    response: TestClock,
  },
  async ({ merchant, params, body }) => advanceTestClock(merchant, params.id, body),
);
