/**
 * Builds every catalog function as the stack does (infra/bundle.ts) and times a cold init: a fresh `node` process that
 * imports the bundle and calls nothing, against a baseline built the same way that only constructs the DynamoDB
 * document client. `bytes` counts what a cold start reads: index.mjs and the chunks it imports statically, not the
 * chunks loaded with `import()` on first use.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { catalog, handlerFile } from '../functions/catalog.ts';
import { FUNCTION_BUILD, PROJECT_ROOT } from '../infra/bundle.ts';
import { median } from './stats.ts';

export const ROOT = PROJECT_ROOT;
export const OUT = join(ROOT, 'bench/out');

/** What Lambda sets (CDK's `environment` + the grants' variables), so config validation passes without network. */
const LAMBDA_ENV = {
  PATH: process.env.PATH ?? '',
  APP_ENV: 'aws',
  LOG_LEVEL: 'INFO',
  POWERTOOLS_SERVICE_NAME: 'payments-api',
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'payments',
  EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/events',
  RENEWALS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/renewals',
  CLOCKS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/clocks',
};

export const BASELINE = '(baseline: document client only)';

const WRAPPER = `const t = performance.now();
await import(process.argv[2]);
process.stdout.write(String(performance.now() - t));
`;

export interface BundleResult {
  name: string;
  bytes: number;
  initMs: number;
  ratio: number;
  /** the largest packages the baseline does not have, KB */
  additions: Record<string, number>;
}

function initOnce(bundle: string, wrapper: string): number {
  const run = spawnSync(process.execPath, [wrapper, bundle], { env: LAMBDA_ENV, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`init of ${bundle} failed: ${run.stderr}`);
  return Number(run.stdout);
}

export async function benchBundles(runs: number, log: (line: string) => void): Promise<BundleResult[]> {
  rmSync(OUT, { recursive: true, force: true }); // chunks of an earlier build would stay beside the new ones
  mkdirSync(OUT, { recursive: true });
  const baselineEntry = join(OUT, 'baseline.ts');
  writeFileSync(
    baselineEntry,
    `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const db = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
export const handler = async () => db.config.region;
`,
  );
  const wrapper = join(OUT, 'init.mjs');
  writeFileSync(wrapper, WRAPPER);

  const entries = [
    { name: BASELINE, entry: baselineEntry, dir: 'baseline' },
    ...catalog.map((f) => ({ name: f.name, entry: handlerFile(f.name), dir: f.name })),
  ];
  const started = performance.now();
  // One build per function, as the stack makes them (chunks are not shared between functions).
  const metafiles = new Map<string, Metafile>();
  for (const e of entries) {
    const { metafile } = await build({ ...FUNCTION_BUILD, entryPoints: [{ in: e.entry, out: 'index' }], outdir: join(OUT, e.dir), metafile: true });
    metafiles.set(e.dir, metafile);
  }
  const packages = (dir: string) => {
    const bytes = new Map<string, number>();
    for (const output of initOutputs(metafiles.get(dir)!)) {
      for (const [path, input] of Object.entries(output.inputs)) {
        const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? 'project code';
        bytes.set(name, (bytes.get(name) ?? 0) + input.bytesInOutput);
      }
    }
    return bytes;
  };
  const inBaseline = packages('baseline');
  log(`built ${entries.length} bundles in ${Math.round(performance.now() - started)} ms`);

  // Rounds: the baseline before and after every pass over the functions, so a drift of the machine hits both.
  const samples = new Map<string, number[]>(entries.map((e) => [e.name, []]));
  for (let r = 0; r < runs; r++) {
    for (const e of [entries[0]!, ...entries.slice(1), entries[0]!]) samples.get(e.name)!.push(initOnce(join(OUT, e.dir, 'index.mjs'), wrapper));
    log(`cold init round ${r + 1}/${runs}`);
  }
  const base = median(samples.get(BASELINE)!);
  return entries.map((e) => {
    const initMs = median(samples.get(e.name)!);
    const extra = [...packages(e.dir)].filter(([name]) => !inBaseline.has(name)).sort((a, b) => b[1] - a[1]);
    const additions = Object.fromEntries(extra.slice(0, 3).map(([name, bytes]) => [name, Math.round(bytes / 1024)]));
    const bytes = initOutputs(metafiles.get(e.dir)!).reduce((sum, output) => sum + output.bytes, 0);
    return { name: e.name, bytes, initMs, ratio: initMs / base, additions };
  });
}

/** The outputs a cold start loads: the entry and, transitively, what it imports statically. */
function initOutputs({ outputs }: Metafile): Metafile['outputs'][string][] {
  const entry = Object.keys(outputs).find((path) => path.endsWith('/index.mjs'))!;
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of outputs[path]!.imports) if (imported.kind === 'import-statement' && imported.path in outputs) visit(imported.path);
  };
  visit(entry);
  return [...seen].map((path) => outputs[path]!);
}
