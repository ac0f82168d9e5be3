import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/logger.ts';
import { worker } from '../../shared/worker.ts';
import { fakeContext } from '../support/lambda.ts';

/** What the logger printed (to the streams or through console, whichever it uses), as parsed JSON objects. */
function captureLogs() {
  const lines: Array<Record<string, unknown>> = [];
  // one JSON object per write: a line, or indented over several (POWERTOOLS_DEV, as in these tests)
  const take = (chunk: unknown) => {
    try {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (take(chunk), true)),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (take(chunk), true)),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => take(args.join(' '))),
    ),
  ];
  return { lines, restore: () => spies.forEach((spy) => spy.mockRestore()) };
}
afterEach(() => vi.restoreAllMocks());

describe('worker()', () => {
  it('puts the Lambda context on every log line of the invocation, and drops keys of the one before', async () => {
    // Prepare: a worker that logs, once with a key of its own
    const handler = worker(async (event: { tag?: string }) => {
      if (event.tag) logger.appendKeys({ tag: event.tag });
      logger.warn('working');
      return 'done';
    });
    const logs = captureLogs();
    // Act
    const first = await handler({ tag: 'first' }, fakeContext({ name: 'workers/renewal', awsRequestId: 'req-1' }));
    await handler({}, fakeContext({ name: 'workers/renewal', awsRequestId: 'req-2' }));
    logs.restore();
    // Assess
    expect(first).toBe('done');
    const working = logs.lines.filter((l) => l.message === 'working');
    expect(working).toHaveLength(2);
    expect(working[0]).toMatchObject({ function_request_id: 'req-1', tag: 'first', function_name: expect.stringContaining('workers') });
    expect(working[1]).toMatchObject({ function_request_id: 'req-2' });
    expect(working[1]).not.toHaveProperty('tag');
  });
});
