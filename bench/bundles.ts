/**
 * Bundles every catalog function the way CDK does and times a cold init: a fresh `node` process that imports the
 * bundle and calls nothing, against a baseline bundle that only constructs the DynamoDB document client.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { catalog, handlerFile } from '../functions/catalog.ts';
import { median } from './stats.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const OUT = join(ROOT, 'bench/out');

/**
 * A copy of the `bundling` options of `NodejsFunction` in infra/constructs/functions.ts (AppFunction), as the
 * esbuild flags CDK turns them into (aws-cdk-lib/aws-lambda-nodejs `buildEsbuildArgs`). Keep the two in step.
 */
const CDK_BUNDLING: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  mainFields: ['module', 'main'],
  external: [],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  tsconfig: join(ROOT, 'tsconfig.json'),
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  absWorkingDir: ROOT,
  logLevel: 'warning',
};

/** What Lambda sets (CDK's `environment` + the grants' variables), so config validation passes without network. */
const LAMBDA_ENV = {
  PATH: process.env.PATH ?? '',
  APP_ENV: 'aws',
  LOG_LEVEL: 'INFO',
  POWERTOOLS_SERVICE_NAME: 'payments-api',
  NODE_OPTIONS: '--enable-source-maps',
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'payments',
  APP_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:app-secret',
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
  // One esbuild call with every entry: without code splitting each output is the same stand-alone bundle CDK makes.
  const { metafile } = await build({
    ...CDK_BUNDLING,
    entryPoints: entries.map((e) => ({ in: e.entry, out: `${e.dir}/index` })),
    outdir: OUT,
    outExtension: { '.js': '.mjs' },
    metafile: true, // a report of the inputs, the bundle is unchanged
  });
  const packages = (dir: string) => {
    const bytes = new Map<string, number>();
    for (const [path, input] of Object.entries(metafile.outputs[`bench/out/${dir}/index.mjs`]!.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? 'project code';
      bytes.set(name, (bytes.get(name) ?? 0) + input.bytesInOutput);
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
    return { name: e.name, bytes: statSync(join(OUT, e.dir, 'index.mjs')).size, initMs, ratio: initMs / base, additions };
  });
}
