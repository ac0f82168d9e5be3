import { listTestClocks } from '../../shared/domain/test-clocks.ts';
import { http } from '../../shared/http/index.ts';
import { ListTestClocksQuery } from '../../shared/schemas/test-clocks.ts';
import { TestClockList } from '../../shared/schemas/responses/test-clocks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'test_clocks:read', query: ListTestClocksQuery, response: TestClockList },
  async ({ merchant, query }) => listTestClocks(merchant, query),
);
