/**
 * The dashboard on the local gateway (the cloud's CloudFront answers the same, infra/constructs/dashboard-site.ts):
 *   GET /                    302 to /dashboard
 *   GET /dashboard/assets/…  the build's hashed files, cached for a year (a missing one: 404)
 *   GET /dashboard, /dashboard/…  index.html, whatever the route (the single-page app routes itself)
 * Every answer carries the dashboard's security headers: a CSP that allows only this origin's files (no inline script)
 * and no framing.
 */
import type { ServerResponse } from 'node:http';
import type { DashboardFiles } from '../../dashboard/build.ts';
import { ASSET_CACHE_CONTROL, DASHBOARD_HEADERS } from '../../dashboard/headers.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/**
 * The dashboard's routes: answers a request it owns (true) or leaves it to the API (false). `files` gives the build
 * (built on first need and kept).
 */
export function dashboardRoutes(files: () => Promise<DashboardFiles>) {
  return async (method: string, path: string, res: ServerResponse): Promise<{ status: number } | undefined> => {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    if (path === '/') return send(res, method, 302, { Location: '/dashboard', 'Content-Length': '0' });
    if (path !== '/dashboard' && !path.startsWith('/dashboard/')) return undefined;
    const built = (await files()).files;
    const asset = path.startsWith('/dashboard/assets/') ? path.slice('/dashboard/'.length) : undefined;
    if (asset !== undefined) {
      const bytes = built.get(asset);
      if (!bytes) return send(res, method, 404, { 'Content-Type': 'text/plain; charset=utf-8' }, 'Not found');
      return send(res, method, 200, { 'Content-Type': typeOf(asset), 'Cache-Control': ASSET_CACHE_CONTROL }, bytes);
    }
    return send(res, method, 200, { 'Content-Type': TYPES['.html']!, 'Cache-Control': 'no-cache' }, built.get('index.html')!);
  };
}

const typeOf = (path: string) => TYPES[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream';

function send(res: ServerResponse, method: string, status: number, headers: Record<string, string>, body: string | Uint8Array = '') {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...DASHBOARD_HEADERS, 'Content-Length': String(bytes.length), ...headers });
  res.end(method === 'HEAD' ? undefined : bytes);
  return { status };
}

/** The build, made once on first need (a failed build is tried again on the next request). */
export function lazyDashboard(): () => Promise<DashboardFiles> {
  let built: Promise<DashboardFiles> | undefined;
  return () =>
    (built ??= import('../../dashboard/build.ts')
      .then((m) => m.bundleDashboard())
      .catch((err: unknown) => {
        built = undefined;
        throw err;
      }));
}
