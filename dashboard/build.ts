/**
 * The dashboard's build: one esbuild run of `dashboard/src/main.tsx` (Preact's JSX set here, not by a tsconfig),
 * minified, code-split (a lazily loaded page is its own chunk), file names hashed so they can be cached for good,
 * its CSS bundled beside it, and an `index.html` that loads them from `/dashboard/assets/`. `npm start` and the test
 * gateway serve it from memory (bundleDashboard); CDK deploys what buildDashboard writes.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type BuildResult, buildSync, type Metafile } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface DashboardFiles {
  /** path below the build's root (`index.html`, `assets/main-3F2K….js`) → its bytes */
  files: Map<string, Uint8Array>;
  /** the JavaScript loaded before the first page shows: the entry and the chunks it imports statically */
  initialScripts: string[];
}

const OPTIONS = {
  entryPoints: [join(HERE, 'src/main.tsx')],
  bundle: true,
  minify: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: join(HERE, 'out/assets'),
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.svg': 'file', '.png': 'file', '.woff2': 'file' },
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  metafile: true,
  write: false,
  logLevel: 'silent',
} satisfies BuildOptions;

/** The build in memory. */
export const bundleDashboard = async (): Promise<DashboardFiles> => filesOf(await build(OPTIONS));

/** The same, synchronously: for CDK, whose local bundling cannot wait. */
export const bundleDashboardSync = (): DashboardFiles => filesOf(buildSync(OPTIONS));

function filesOf(result: BuildResult<typeof OPTIONS>): DashboardFiles {
  const root = join(HERE, 'out');
  const files = new Map(result.outputFiles.map((f) => [relative(root, f.path), f.contents] as const));
  const { entry, css, initial } = entryOf(result.metafile, root);
  files.set('index.html', new TextEncoder().encode(indexHtml(entry, css, initial)));
  return { files, initialScripts: initial };
}

/** Writes the build to `outdir` (emptied first): `index.html` and `assets/`. */
export async function buildDashboard(outdir: string): Promise<DashboardFiles> {
  return writeOut(await bundleDashboard(), outdir);
}

/** The same, synchronously (CDK's local bundling). */
export const buildDashboardSync = (outdir: string): DashboardFiles => writeOut(bundleDashboardSync(), outdir);

function writeOut(built: DashboardFiles, outdir: string): DashboardFiles {
  rmSync(outdir, { recursive: true, force: true });
  for (const [path, bytes] of built.files) {
    mkdirSync(dirname(join(outdir, path)), { recursive: true });
    writeFileSync(join(outdir, path), bytes);
  }
  return built;
}

function entryOf(metafile: Metafile, root: string) {
  const rel = (path: string) => relative(root, path);
  const outputs = Object.entries(metafile.outputs).map(([path, output]) => ({ path: rel(join(process.cwd(), path)), output }));
  // a lazily imported page is an entry point of its own in the metafile: the entry is main.tsx's
  const entry = outputs.find((o) => o.output.entryPoint?.endsWith('src/main.tsx') && o.path.endsWith('.js'));
  if (!entry) throw new Error('The dashboard build made no entry script');
  const initial = new Set<string>();
  const visit = (path: string) => {
    if (initial.has(path)) return;
    initial.add(path);
    const output = outputs.find((o) => o.path === path);
    for (const i of output?.output.imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(rel(join(process.cwd(), i.path)));
  };
  visit(entry.path);
  return { entry: entry.path, css: entry.output.cssBundle ? rel(join(process.cwd(), entry.output.cssBundle)) : undefined, initial: [...initial] };
}

// the initial chunks are preloaded with the entry, not found one after another
function indexHtml(entry: string, css: string | undefined, initial: string[]): string {
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Dashboard</title>',
    ...(css ? [`<link rel="stylesheet" href="/dashboard/${css}">`] : []),
    `<script type="module" src="/dashboard/${entry}"></script>`,
    ...initial.filter((path) => path !== entry).map((path) => `<link rel="modulepreload" href="/dashboard/${path}">`),
  ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    ...head.map((line) => `  ${line}`),
    '</head>',
    '<body>',
    '  <noscript>The dashboard needs JavaScript. Everything it does is also in the API: see /docs.</noscript>',
    '  <div id="app"></div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
