import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/* How the suite stays fast as it grows (docs/testing.md), read from the test files themselves. */

const root = join(import.meta.dirname, '..', '..');
const testFiles = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => ({ path: relative(root, join(root, 'test', file)), text: readFileSync(join(root, 'test', file), 'utf8') }));

/** What only a sweep (a query across every merchant) or a queue or stream poller does. */
const SWEEPS =
  /workers\/(renewal-scanner|daily-settlement|daily-reconciliation)\.ts'|\b(reconcile|runReconciler|dailyJobFor|expiredOperations|startQueuePollers|startStreamPollers)\(/;

describe('the suite', () => {
  it('starts `npm start` only in the tests of the local runtime itself; the others share the global setup’s services', () => {
    const starting = testFiles.filter((f) => /\bstartRuntimeProcess\(/.test(f.text)).map((f) => f.path);
    expect(starting.filter((path) => !['test/e2e/local-runtime.test.ts', 'test/e2e/readme-tour.test.ts'].includes(path))).toEqual([]);
  });

  it('runs every sweep and poller on the file’s own table, where it meets no other file’s items', () => {
    const sweeping = testFiles.filter((f) => SWEEPS.test(f.text) && f.path !== 'test/e2e/local-runtime.test.ts');
    expect(sweeping.length).toBeGreaterThan(10);
    expect(sweeping.filter((f) => !/\buseOwnTable\(/.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it('reads a table stream only from the file’s own table (the shared one has none, so no file pays for records nobody reads)', () => {
    const reading = testFiles.filter((f) => /\b(streamEvents|streamed)\(/.test(f.text));
    expect(reading.length).toBeGreaterThan(5);
    expect(reading.filter((f) => !/\buseOwnTable\([^)]*(stream|queues): true/.test(f.text)).map((f) => f.path)).toEqual([]);
  });
});
