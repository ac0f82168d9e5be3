import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFunction, PROJECT_ROOT } from '../../infra/bundle.ts';
import { withSourceStack } from '../../shared/source-mapped.ts';

const dir = mkdtempSync(join(tmpdir(), 'source-mapped-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A worker that fails on line 4 of its source, built as the stack builds functions (minified, maps beside). */
const FAILING_WORKER = [
  `import { worker } from '${join(PROJECT_ROOT, 'shared/worker.ts')}';`,
  '',
  'export function settle(amount: number): number {',
  "  if (amount > 0) throw new Error('the ledger disagrees');",
  '  return amount;',
  '}',
  '',
  'export const handler = worker(async (event: { amount: number }) => settle(event.amount));',
].join('\n');

/** Runs the built worker on a failing event in a node of its own (no source map support, as in Lambda): its output lines. */
function runBuilt(): string[] {
  writeFileSync(join(dir, 'failing-worker.ts'), FAILING_WORKER);
  bundleFunction(join(dir, 'failing-worker.ts'), join(dir, 'out'));
  const invoke = [
    `const { handler } = await import(${JSON.stringify(pathToFileURL(join(dir, 'out/index.mjs')).href)});`,
    "const context = { functionName: 'workers/renewal', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 1000 };",
    'await handler({ amount: 5 }, context).catch((error) => console.log(JSON.stringify({ thrown: error.message })));',
  ].join('\n');
  writeFileSync(join(dir, 'invoke.mjs'), invoke);
  const run = spawnSync(process.execPath, [join(dir, 'invoke.mjs')], {
    env: { ...process.env, NODE_OPTIONS: '', POWERTOOLS_DEV: 'false', LOG_LEVEL: 'INFO' },
    encoding: 'utf8',
  });
  return `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => line.startsWith('{'));
}

describe('stacks of unexpected errors in the Lambda build', () => {
  it('are logged in source positions by a failing worker, which still fails for Lambda to retry', () => {
    // Act
    const lines = runBuilt().map((line) => JSON.parse(line) as { message?: string; thrown?: string; error?: { stack?: string } });
    // Assess: the error reaches Lambda; the log line names the source file and line, not the bundle's
    expect(lines).toContainEqual({ thrown: 'the ledger disagrees' });
    const logged = lines.find((l) => l.message === 'Unhandled error');
    const stack = String(logged?.error?.stack);
    expect(stack).toContain('failing-worker.ts:4:');
    expect(stack).not.toContain('index.mjs');
  });

  it('keep their positions where no map is beside the file (code run unbundled)', () => {
    const error = new Error('unbundled');
    const before = error.stack;
    expect(withSourceStack(error).stack).toBe(before);
    expect(before).toContain('source-mapped.test.ts');
  });
});
