/**
 * `npm run client:build`: the client package in client/dist, ready for `npm pack ./client`:
 *   dist/index.js     the runtime, one ES module with no dependency (esbuild)
 *   dist/*.d.ts       its types with the API's `paths` (tsc, from the OpenAPI document of `npm run openapi`)
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { projectRoot } from '../infra/local/lambda.ts';
import { writeOpenApi } from '../infra/openapi/write.ts';

export const CLIENT_DIR = resolve(projectRoot, 'client');

export async function buildClient(): Promise<string> {
  await writeOpenApi();
  const dist = resolve(CLIENT_DIR, 'dist');
  rmSync(dist, { recursive: true, force: true });
  await build({
    entryPoints: [resolve(CLIENT_DIR, 'src/index.ts')],
    outfile: resolve(dist, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'warning',
  });
  execFileSync(process.execPath, [resolve(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', CLIENT_DIR], { stdio: 'inherit' });
  return dist;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  console.warn(`client built in ${await buildClient()}; pack it with: npm pack ./client`);
}
