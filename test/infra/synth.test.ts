import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalog } from '../../functions/catalog.ts';

const out = mkdtempSync(join(tmpdir(), 'cdk-out-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('cdk synth', () => {
  it('builds every catalog function into an ESM bundle, and every stack under 350 resources, offline, with cdk-nag passing', () => {
    // Act: the real CLI, as ops run it (bundling with esbuild, validation plugins on); 60-95 s on a busy 2-core box
    const run = spawnSync('npx', ['cdk', 'synth', '--quiet', '--output', out], { encoding: 'utf8', timeout: 180_000 });
    // Assess
    expect(run.status, run.stderr).toBe(0);
    const assets = readdirSync(out).filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')));
    expect(assets).toHaveLength(catalog.length);
    for (const asset of assets) {
      const bundle = readFileSync(join(out, asset, 'index.mjs'), 'utf8');
      expect(bundle).toMatch(/export\s*\{[^}]*handler/);
      expect(bundle).not.toMatch(/from\s*["']@aws-sdk\//);
    }
    // The root template and the nested ones (one per API area, workers, stage), each with room to grow.
    const templates = readdirSync(out).filter((f) => f.endsWith('.template.json'));
    expect(templates.length).toBeGreaterThan(3);
    for (const file of templates) {
      const { Resources } = JSON.parse(readFileSync(join(out, file), 'utf8')) as { Resources: Record<string, unknown> };
      expect(Object.keys(Resources).length, file).toBeLessThan(350);
    }
  }, 180_000);
});
