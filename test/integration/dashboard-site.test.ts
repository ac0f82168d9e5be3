import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard } from '../../dashboard/build.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { startTestGateway } from '../support/runtime.ts';

describe('the dashboard on the local gateway', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());

  it('serves index.html at /dashboard and for any route under it, with a strict CSP and no inline script', async () => {
    // Act
    const [page, deep] = await Promise.all([fetch(`${gateway.url}/dashboard`), fetch(`${gateway.url}/dashboard/payments/pay_01jdashboard`)]);
    const html = await page.text();
    // Assess
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<noscript>');
    expect(html).toMatch(/<script type="module" src="\/dashboard\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
    expect([...html.matchAll(/<script[^>]*>/g)].every(([tag]) => tag.includes(' src="/dashboard/assets/'))).toBe(true);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
  });

  it('serves the hashed assets cached for good, a missing one 404 (never the page in its place)', async () => {
    // Prepare
    const html = await (await fetch(`${gateway.url}/dashboard/`)).text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    // Act
    const [asset, missing] = await Promise.all([fetch(`${gateway.url}${script}`), fetch(`${gateway.url}/dashboard/assets/main-MISSING.js`)]);
    // Assess
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await asset.text()).length).toBeGreaterThan(100);
    expect(missing.status).toBe(404);
  });

  it('sends / to /dashboard and leaves every other path to the API', async () => {
    // Act
    const root = await fetch(`${gateway.url}/`, { redirect: 'manual' });
    const post = await fetch(`${gateway.url}/dashboard`, { method: 'POST' });
    const api = await fetch(`${gateway.url}/api/customers`);
    // Assess
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');
    expect(post.status).toBe(404);
    expect((await post.json()).error.code).toBe('route_not_found');
    expect(api.status).toBe(401);
  });
});

describe('buildDashboard', () => {
  it('writes index.html and the assets it names into the folder given', async () => {
    // Prepare
    const outdir = await mkdtemp(join(tmpdir(), 'dashboard-'));
    try {
      // Act
      const built = await buildDashboard(outdir);
      // Assess
      const html = await readFile(join(outdir, 'index.html'), 'utf8');
      const assets = await readdir(join(outdir, 'assets'));
      for (const [, path] of html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+)"/g)) expect(assets).toContain(path!.slice('assets/'.length));
      expect(built.initialScripts.every((path) => assets.includes(path.slice('assets/'.length)))).toBe(true);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  });
});
