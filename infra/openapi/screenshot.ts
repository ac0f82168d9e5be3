/**
 * `npm run docs:screenshot`: the docs page as headless Chromium renders it, proof that /docs shows the document.
 * Starts the local gateway alone (the docs need no database), opens /docs, waits until Swagger UI has rendered an
 * entry per HTTP function, and saves
 *   bench/out/docs.png             the whole page
 *   bench/out/docs-operation.png   one operation opened (POST /api/payments/create: parameters, body, responses)
 * Needs Chromium (`apt-get install chromium`); CHROMIUM_PATH overrides /usr/bin/chromium. Not part of `npm test`.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { catalog, httpFunctions } from '../../functions/catalog.ts';
import { startGateway } from '../local/gateway.ts';
import { projectRoot } from '../local/lambda.ts';
import { useOfflineEnv } from './write.ts';

const OUT = resolve(projectRoot, 'bench/out');

useOfflineEnv();
mkdirSync(OUT, { recursive: true });
const gateway = await startGateway({ port: 0, catalog, log: false });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${gateway.url}/docs`);
  const operations = httpFunctions().length;
  await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, operations, { timeout: 60_000 });
  await page.screenshot({ path: resolve(OUT, 'docs.png'), fullPage: true });

  const create = page.locator('#operations-Payments-paymentsCreate');
  await create.locator('.opblock-summary').click();
  await create.locator('.responses-wrapper').waitFor();
  await create.screenshot({ path: resolve(OUT, 'docs-operation.png') });
  console.warn(`${operations} operations rendered; screenshots in ${OUT}`);
} finally {
  await browser.close();
  await gateway.close();
}
