/**
 * `npm run invoke -- <function> [fixture.json]` runs one catalog function on an event fixture (by default
 * `customers/get` → `events/http/customers-get.json`), like `sam local invoke`, against fresh in-memory DynamoDB Local
 * and SQS with the demo merchant seeded. Placeholders (`{{API_KEY}}`, `{{CUSTOMER_ID}}`, …) are filled from the seed and
 * fixture-objects.ts. Exit code 0 when the handler returned (whatever the status), 1 when it threw, 2 on bad usage.
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { catalog, type FunctionSpec } from '../../functions/catalog.ts';
import { defaultFixturePath, fixtureBaseName, placeholdersFrom, readFixture } from './fixtures.ts';
import { invokeFunction, projectRoot } from './lambda.ts';
import { type ProviderFakes, startProviderFakes } from './fakes/index.ts';
import { startLocalStack, type LocalStack } from './services.ts';

const [name, fixtureArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));

function usage(message: string): never {
  console.error(`${message}\n\nUsage: npm run invoke -- <function> [fixture.json]\nFunctions:`);
  for (const f of catalog) {
    const t = f.trigger;
    const what =
      t.type === 'http'
        ? `${t.method} ${t.path}`
        : t.type === 'queue'
          ? `queue ${t.queue}`
          : t.type === 'schedule'
            ? `schedule ${t.expression}`
            : t.type === 'stream'
              ? 'table stream'
              : `invoked by ${t.callers.join(', ')}`;
    console.error(`  ${f.name.padEnd(24)} ${what}`);
  }
  process.exit(2);
}

if (!name) usage('Missing function name.');
const spec: FunctionSpec | undefined = catalog.find((f) => f.name === name || fixtureBaseName(f.name) === name);
if (!spec) usage(`Unknown function "${name}".`);
const fixturePath = resolve(process.cwd(), fixtureArg ?? resolve(projectRoot, defaultFixturePath(spec)));
if (!existsSync(fixturePath)) usage(`Fixture not found: ${fixturePath}`);

let stack: LocalStack | undefined;
let fakes: ProviderFakes | undefined;
const stop = async () => {
  await fakes?.close().catch((err: unknown) => console.error('Stopping the provider fakes failed:', err));
  await stack?.stop().catch((err: unknown) => console.error('Stopping local services failed:', err));
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void stop().finally(() => process.exit(130)));
}

let exitCode = 0;
try {
  // The provider fakes on free ports: a connector fixture verifies its credentials against one.
  [stack, fakes] = await Promise.all([startLocalStack({ logLevel: 'WARN' }), startProviderFakes()]);
  Object.assign(process.env, stack.env, fakes.env);
  (await import('./private-functions.ts')).runPrivateFunctionsInProcess();
  const { createDemoMerchant } = await import('../../shared/domain/demo.ts');
  const demo = await createDemoMerchant();
  const { createFixtureObjects } = await import('./fixture-objects.ts');
  const objects = await createFixtureObjects(demo);
  const { event, missing } = readFixture(fixturePath, { ...placeholdersFrom(demo), ...placeholdersFrom(objects) });
  if (missing.length) console.warn(`Warning: no value for placeholder(s) ${missing.map((m) => `{{${m}}}`).join(', ')}`);

  console.log(`▶ ${spec.name}  ${relative(process.cwd(), fixturePath)}`);
  const started = performance.now();
  try {
    const result = await invokeFunction(spec, event);
    const ms = Math.round(performance.now() - started);
    printResult(spec, result, ms);
  } catch (err) {
    exitCode = 1;
    console.error(`✖ ${spec.name} threw after ${Math.round(performance.now() - started)} ms:`, err);
  }
} catch (err) {
  exitCode = 1;
  console.error('invoke failed before the function ran:', err);
} finally {
  await stop();
}
process.exit(exitCode);

function printResult(spec: FunctionSpec, result: unknown, ms: number): void {
  if (spec.trigger.type !== 'http' || !result || typeof result !== 'object' || !('statusCode' in result)) {
    console.log(`✔ returned in ${ms} ms:\n${JSON.stringify(result ?? null, null, 2)}`);
    return;
  }
  const r = result as { statusCode: number; headers?: Record<string, unknown>; body?: string | null };
  console.log(`✔ ${r.statusCode} in ${ms} ms`);
  for (const [k, v] of Object.entries(r.headers ?? {})) console.log(`  ${k}: ${String(v)}`);
  let body: unknown = r.body ?? '';
  try {
    body = JSON.parse(String(r.body));
  } catch {
    // not JSON: print as is
  }
  console.log(typeof body === 'string' ? body : JSON.stringify(body, null, 2));
}
