import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';

/** The scripts served to browsers, each `shared/hosted/browser/<name>.ts` bundled by esbuild into one plain script. */
export type BrowserScript = 'card-fields' | 'card-fields-frame';
const SCRIPTS: readonly BrowserScript[] = ['card-fields', 'card-fields-frame'];

/** Defined only in a Lambda bundle: the function build (infra/bundle.ts) sets it to `buildBrowserScripts()`. */
declare const BUILT_BROWSER_SCRIPTS: Record<BrowserScript, string> | undefined;

/**
 * Bundles every browser script from its source. esbuild is a development dependency, required here when called (a
 * static import would bundle it into the Lambda), which is only where the source is: the function build, `npm start`
 * and the tests.
 */
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
