import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, buildSync } from 'esbuild';
import { buildBrowserScripts } from '../shared/hosted/browser-scripts.ts';

/** The repository root: entries and tsconfig are resolved from here, whatever the working directory. */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
const NODE_HTTP_SHIM = join(PROJECT_ROOT, 'infra/shims/node-http.cjs');

/**
 * How a function is built for Lambda, by the stack and the benchmark alike: one ES module, `index.mjs`, exporting
 * `handler`, with everything bundled (the AWS SDK too, so package-lock.json's versions run in Lambda). Splitting puts
 * what the code loads with `import()` (a provider's SDK, pdf-lib, the SES and SQS clients) in `chunks/`, read when first
 * needed: a cold start that answers a Stripe payment does not parse Braintree's and Adyen's code.
 */
export const FUNCTION_BUILD: BuildOptions = {
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  mainFields: ['module', 'main'],
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  tsconfig: join(PROJECT_ROOT, 'tsconfig.json'),
  absWorkingDir: PROJECT_ROOT,
  // Imports of node:http get the CommonJS module, not Node's ES facade of it, which loads undici (infra/shims/node-http.cjs).
  // The Encryption SDK's ES build, which tree-shakes: its CommonJS entry requires every keyring, the hierarchical one's
  // aggregated DynamoDB client too, whose code then lands in a chunk every cold start reads (about 65 KB).
  alias: { http: NODE_HTTP_SHIM, 'node:http': NODE_HTTP_SHIM, '@aws-crypto/client-node': '@aws-crypto/client-node/build/module/src/index.js' },
  // CommonJS dependencies bundled into an ES module still call `require` for Node built-ins (each chunk declares its own).
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  // The hosted pages' browser scripts, bundled here from shared/hosted/browser and inlined into the functions that serve
  // them (shared/hosted/browser-scripts.ts): Lambda needs neither esbuild nor the scripts' source.
  define: { BUILT_BROWSER_SCRIPTS: JSON.stringify(buildBrowserScripts()) },
  // Warnings and errors only: `npm run synth` stays quiet.
  logLevel: 'warning',
};

/** Builds the handler file `entry` (relative to the root) into `outdir` (index.mjs, chunks/, source maps). */
export function bundleFunction(entry: string, outdir: string): void {
  buildSync({ ...FUNCTION_BUILD, entryPoints: [{ in: entry, out: 'index' }], outdir });
}
