import { createTestClock } from '../../shared/domain/test-clocks.ts';
import { http } from '../../shared/http/index.ts';
import { CreateTestClockBody } from '../../shared/schemas/test-clocks.ts';
import { TestClock } from '../../shared/schemas/responses/test-clocks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'test_clocks:write', body: CreateTestClockBody, idempotent: true, response: TestClock },
  async ({ merchant, body, origin }) => createTestClock(merchant, body, origin),
);
