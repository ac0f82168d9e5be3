import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';

/**
 * The scripts served to browsers, each `shared/hosted/browser/<name>.ts` bundled by esbuild into one plain script.
 * `npm start` and the tests bundle them from the source on first use; the Lambda build (infra/bundle.ts) bundles them
 * once and inlines their text as `BUILT_BROWSER_SCRIPTS` (esbuild's `define`), so Lambda needs neither esbuild nor the
 * source. No generated file, no step to run first (docs/architecture.md, "Project layout").
 */
export type BrowserScript = 'card-fields' | 'card-fields-frame' | 'card-form';
const SCRIPTS: readonly BrowserScript[] = ['card-fields', 'card-fields-frame', 'card-form'];

/** Defined only in a Lambda bundle, as `buildBrowserScripts()`. */
declare const BUILT_BROWSER_SCRIPTS: Record<BrowserScript, string> | undefined;

/** Bundles every browser script from its source; esbuild is required when called, as a static import would bundle it. */
export function buildBrowserScripts(): Record<BrowserScript, string> {
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof esbuild;
  const { outputFiles } = buildSync({
    entryPoints: SCRIPTS.map((name) => ({ in: fileURLToPath(new URL(`browser/${name}.ts`, import.meta.url)), out: name })),
    outdir: 'browser-scripts',
    write: false,
    absWorkingDir: fileURLToPath(new URL('../../', import.meta.url)),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    logLevel: 'warning',
  });
  return Object.fromEntries(SCRIPTS.map((name) => [name, outputFiles.find((file) => file.path.endsWith(`/${name}.js`))!.text])) as Record<
    BrowserScript,
    string
  >;
}

let built: Record<BrowserScript, string> | undefined;

/** A browser script's text: the one built into the Lambda bundle, else (`npm start`, tests) built on first use. */
export function browserScript(name: BrowserScript): string {
  built ??= typeof BUILT_BROWSER_SCRIPTS === 'undefined' ? buildBrowserScripts() : BUILT_BROWSER_SCRIPTS;
  return built[name];
}
