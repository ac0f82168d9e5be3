import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalog } from '../../functions/catalog.ts';

const out = mkdtempSync(join(tmpdir(), 'cdk-out-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The relative imports of a built file: static (`from"./x.mjs"`, `import"./x.mjs"`) and dynamic (`import("./x.mjs")`). */
const importsOf = (code: string) => ({
  static: [...code.matchAll(/(?:from|import)\s*["'](\.\.?\/[^"']+)["']/g)].map((m) => m[1]!),
  dynamic: [...code.matchAll(/import\(\s*["'](\.\.?\/[^"']+)["']\s*\)/g)].map((m) => m[1]!),
});

/** The files a cold start reads: index.mjs and, transitively, what it imports statically. */
function readAtInit(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const specifier of importsOf(readFileSync(file, 'utf8')).static) readAtInit(join(dirname(file), specifier), seen);
  return seen;
}

/** Text only each large package's own code holds (it is not in ours): it must be read when used, not at a cold start. */
const LOADED_ON_FIRST_USE = {
  stripe: 'api.stripe.com',
  braintree: 'api.braintreegateway.com',
  'pdf-lib': '%PDF-',
  // the X-Ray SDK under Powertools Tracer: loaded by the first sampled invocation (shared/tracer.ts)
  'aws-xray-sdk-core': 'AWS_XRAY_DAEMON_ADDRESS',
  // the Encryption SDK (the card vault): loaded by the first seal or open (shared/store/vault.ts)
  '@aws-crypto/client-node': 'aws-crypto-public-key',
};
/** A command only DynamoDB's aggregated client holds: the Encryption SDK's CommonJS entry brought it into every cold start. */
const AGGREGATED_DYNAMODB_CLIENT = 'CreateBackup';

describe('cdk synth', () => {
  it('builds every catalog function into a complete ESM bundle that reads no provider SDK, no X-Ray SDK and no ES facade of node:http at init, and every stack under 350 resources, offline, with cdk-nag passing', () => {
    // Act: the real CLI, as ops run it (bundling with esbuild, validation plugins on); about 25 s on a 2-core box
    const run = spawnSync('npx', ['cdk', 'synth', '--quiet', '--output', out], { encoding: 'utf8', timeout: 600_000 });
    // Assess
    expect(run.status, run.stderr).toBe(0);
    const assets = readdirSync(out).filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')));
    expect(assets).toHaveLength(catalog.length);
    const lazyFound = new Set<string>();
    for (const asset of assets) {
      const dir = join(out, asset);
      const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(bundle).toMatch(/export\s*\{[^}]*handler/);
      expect(bundle).not.toMatch(/from\s*["']@aws-sdk\//);
      // complete: every import of every file, static or dynamic, names a file of the asset
      const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.mjs'));
      for (const file of files) {
        const code = readFileSync(join(dir, file), 'utf8');
        const { static: fixed, dynamic } = importsOf(code);
        for (const specifier of [...fixed, ...dynamic])
          expect(existsSync(join(dir, dirname(file), specifier)), `${asset}/${file} → ${specifier}`).toBe(true);
        // node:http is taken as CommonJS: Node's ES facade of it loads undici at every cold start (infra/shims/node-http.cjs)
        expect(code, `${asset}/${file} imports node:http as an ES module`).not.toMatch(/(?:from|import)\s*["'](?:node:)?http["']/);
        for (const [name, marker] of Object.entries(LOADED_ON_FIRST_USE)) if (code.includes(marker)) lazyFound.add(name);
        expect(code.includes(AGGREGATED_DYNAMODB_CLIENT), `${asset}/${file} holds the aggregated DynamoDB client`).toBe(false);
      }
      // a cold start reads no provider SDK, no PDF library and no X-Ray SDK
      for (const file of readAtInit(join(dir, 'index.mjs'))) {
        const code = readFileSync(file, 'utf8');
        for (const [name, marker] of Object.entries(LOADED_ON_FIRST_USE)) expect(code.includes(marker), `${asset}: ${name} read at init`).toBe(false);
      }
    }
    // the markers are real: each package is in some asset, as a chunk loaded on first use
    expect([...lazyFound].sort()).toEqual(Object.keys(LOADED_ON_FIRST_USE).sort());
    // The root template and the nested ones (one per API area, workers, stage), each with room to grow.
    const templates = readdirSync(out).filter((f) => f.endsWith('.template.json'));
    expect(templates.length).toBeGreaterThan(3);
    for (const file of templates) {
      const { Resources } = JSON.parse(readFileSync(join(out, file), 'utf8')) as { Resources: Record<string, unknown> };
      expect(Object.keys(Resources).length, file).toBeLessThan(350);
    }
  }, 600_000);
});
