/**
 * `npm run checkout:screenshots`: the shopper pages (a payment link's page, its receipt, the sandbox's 3-D Secure
 * challenge) as headless Chromium shows them at 390 px wide, saved into docs/checkout/ (checked in, linked from
 * docs/api.md). Starts `npm start` on free ports and brands the demo merchant through the API. Needs Chromium
 * (`apt-get install chromium`); CHROMIUM_PATH overrides /usr/bin/chromium. Not a test.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { projectRoot } from './local/lambda.ts';

const OUT = resolve(projectRoot, 'docs/checkout');

const runtime = spawn('npm', ['start'], {
  cwd: projectRoot,
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, PORT: '0', DEMO_PORT: '0', STRIPE_FAKE_PORT: '0', ADYEN_FAKE_PORT: '0', BRAINTREE_FAKE_PORT: '0', NO_COLOR: '1' },
});
let printed = '';
const banner = new Promise<{ url: string; apiKey: string }>((done, fail) => {
  const read = (chunk: Buffer) => {
    printed += chunk.toString();
    const url = /API\s+(http:\/\/\S+)/.exec(printed)?.[1];
    const apiKey = /Test API key\s+(sk_test_\S+)/.exec(printed)?.[1];
    if (url && apiKey) done({ url, apiKey });
  };
  runtime.stdout!.on('data', read);
  runtime.stderr!.on('data', read);
  runtime.once('exit', (code) => fail(new Error(`npm start exited (${code}) before its banner:\n${printed}`)));
});

try {
  const { url, apiKey } = await banner;
  const call = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string; url: string };
  };
  await call('PUT', '/api/settings', { business_name: 'Acme Tees', brand_color: '#0f766e', support_email: 'help@acme.example' });
  const link = await call('POST', '/api/payment_links', {
    line_items: [
      { name: 'T-shirt', amount: 2000, quantity: 2 },
      { name: 'Tote bag', amount: 1200, quantity: 1 },
    ],
    currency: 'usd',
    tax_rate: 8,
  });
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const shot = (name: string) => page.screenshot({ path: resolve(OUT, `${name}.png`), fullPage: true });
    await page.goto(link.url);
    await shot('payment-link');
    await pay(page, '4242 4242 4242 4242');
    await page.waitForFunction(() => document.title === 'Payment received', undefined, { timeout: 45_000 });
    await shot('receipt');
    // a card whose bank challenges: the sandbox issuer's page
    await page.goto(link.url);
    await pay(page, '4000 0000 0000 3220');
    await page.waitForFunction(() => document.title === 'Authenticate (sandbox)', undefined, { timeout: 45_000 });
    await shot('three-d-secure-sandbox');
  } finally {
    await browser.close();
  }
  console.warn(`3 screenshots in ${OUT}`);
} finally {
  try {
    process.kill(-runtime.pid!, 'SIGINT');
  } catch {
    // already gone
  }
}

async function pay(page: Page, number: string): Promise<void> {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
  await page.getByLabel('Security code (CVC)').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
}
