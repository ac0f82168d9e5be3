/**
 * The dashboard's initial JavaScript: what a browser loads before the first page shows (the entry and the chunks it
 * imports statically, as dashboard/build.ts builds them; pages loaded on navigation are not counted), gzipped as a CDN
 * would send it, against the dashboard's budget of 150 KB (docs/benchmark.md).
 */
import { gzipSync } from 'node:zlib';
import { bundleDashboard } from '../dashboard/build.ts';

export const DASHBOARD_BUDGET_KB = 150;

export interface DashboardSize {
  scripts: string[];
  bytes: number;
  gzipBytes: number;
  /** every script of the build, gzipped (the lazily loaded pages too) */
  allGzipBytes: number;
}

export async function benchDashboard(): Promise<DashboardSize> {
  const { files, initialScripts } = await bundleDashboard();
  const gzipped = (path: string) => gzipSync(files.get(path)!, { level: 9 }).length;
  const scripts = [...files.keys()].filter((path) => path.endsWith('.js'));
  return {
    scripts: initialScripts,
    bytes: initialScripts.reduce((sum, path) => sum + files.get(path)!.length, 0),
    gzipBytes: initialScripts.reduce((sum, path) => sum + gzipped(path), 0),
    allGzipBytes: scripts.reduce((sum, path) => sum + gzipped(path), 0),
  };
}
