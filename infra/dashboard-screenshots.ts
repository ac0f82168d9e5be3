/**
 * `npm run dashboard:screenshots`: each page of the merchant's dashboard as headless Chromium shows it, saved into
 * docs/dashboard/ (checked in, linked from the README). Starts `npm start` on free ports, gives the demo merchant a
 * little history through the API (payments, declines, a refund, a dispute, a webhook endpoint, a routing rule), signs in with
 * the code from the local outbox and visits every page. Needs Chromium (`apt-get install chromium`); CHROMIUM_PATH
 * overrides /usr/bin/chromium. Not a test.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { SANDBOX_APPROVED_CARD, TEST_CARDS } from '../shared/providers/test-cards.ts';
import { projectRoot } from './local/lambda.ts';

const OUT = resolve(projectRoot, 'docs/dashboard');
const PAGES = [
  'Home',
  'Payments',
  'Customers',
  'Subscriptions',
  'Invoices',
  'Disputes',
  'Routing',
  'Connectors',
  'Webhooks',
  'Developers',
  'Team',
  'Audit log',
  'Settings',
  'Reconciliation',
];
const slug = (name: string) => name.toLowerCase().replaceAll(' ', '-');

const runtime = spawn('npm', ['start'], {
  cwd: projectRoot,
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, PORT: '0', DEMO_PORT: '0', STRIPE_FAKE_PORT: '0', ADYEN_FAKE_PORT: '0', BRAINTREE_FAKE_PORT: '0', NO_COLOR: '1' },
});
let printed = '';
const banner = new Promise<{ url: string; email: string; apiKey: string }>((done, fail) => {
  const read = (chunk: Buffer) => {
    printed += chunk.toString();
    const url = /API\s+(http:\/\/\S+)/.exec(printed)?.[1];
    const email = /Demo merchant\s+\S+ \((\S+)\)/.exec(printed)?.[1];
    const apiKey = /Test API key\s+(sk_test_\S+)/.exec(printed)?.[1];
    if (url && email && apiKey) done({ url, email, apiKey });
  };
  runtime.stdout!.on('data', read);
  runtime.stderr!.on('data', read);
  runtime.once('exit', (code) => fail(new Error(`npm start exited (${code}) before its banner:\n${printed}`)));
});
const stopRuntime = () => {
  try {
    process.kill(-runtime.pid!, 'SIGINT');
  } catch {
    // already gone
  }
};

// The shop's webhook endpoint: takes every delivery.
let received = 0;
let onReceived = () => {};
const receiver = createServer((req, res) =>
  req.resume().on('end', () => {
    res.writeHead(200).end(`ok ${++received}`);
    onReceived();
  }),
);
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

try {
  const { url, email, apiKey } = await banner;
  await giveHistory(url, apiKey, receiverUrl);
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${url}/dashboard`);
    await page.getByLabel('Email').fill(email);
    await page.screenshot({ path: resolve(OUT, 'sign-in.png') });
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code').waitFor();
    const outbox = (await (await fetch(`${url}/_local/outbox`)).json()) as { data: { to: string; text: string }[] };
    await page.getByLabel('Code').fill(/\b(\d{6})\b/.exec(outbox.data.find((m) => m.to === email)!.text)![1]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    for (const name of PAGES) {
      await nav.getByRole('link', { name, exact: true }).click();
      await settled(page, name);
      await page.screenshot({ path: resolve(OUT, `${slug(name)}.png`), fullPage: true });
    }
    await nav.getByRole('link', { name: 'Payments', exact: true }).click();
    await settled(page, 'Payments');
    await page.getByRole('row').filter({ hasText: 'refunded' }).first().getByRole('link').click();
    await settled(page, 'Payment');
    await page.screenshot({ path: resolve(OUT, 'payment.png'), fullPage: true });
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('dialog').getByLabel('Amount').fill('5.00');
    await page.screenshot({ path: resolve(OUT, 'refund-dialog.png') });
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 390, height: 844 });
    await nav.getByRole('link', { name: 'Payments', exact: true }).click();
    await settled(page, 'Payments');
    await page.screenshot({ path: resolve(OUT, 'payments-390px.png'), fullPage: true });
  } finally {
    await browser.close();
  }
  console.warn(`${PAGES.length + 4} screenshots in ${OUT}`);
} finally {
  stopRuntime();
  receiver.close();
}

/** The page's heading shown and nothing still loading (charts drawn, lists read). */
async function settled(page: Page, heading: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForFunction(() => !document.querySelector('.loading'));
  await page.waitForLoadState('networkidle');
}

/** A few days' worth of what a shop does, through the API with the demo key. */
async function giveHistory(url: string, apiKey: string, receiverUrl: string): Promise<void> {
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { id: string };
  };
  const card = (number: string) => ({ type: 'card', card: { ...SANDBOX_APPROVED_CARD, number } });
  /** the sandbox's card that declines with `code` */
  const declining = (code: string) => Object.entries(TEST_CARDS).find(([, answer]) => 'decline' in answer && answer.decline === code)![0];
  const pay = (amount: number, currency: string, number: string, email: string) =>
    call('/api/payments/create', { amount, currency, payment_method: card(number), capture_method: 'automatic', customer: { email } });
  await call('/api/webhooks/configure', { url: receiverUrl, events: ['payment.succeeded', 'payment.refunded'] });
  const paid = await pay(4900, 'eur', SANDBOX_APPROVED_CARD.number, 'sam@example.com');
  await call(`/api/payments/${paid.id}/refund`, { amount: 1500 });
  const disputed = await pay(12900, 'usd', SANDBOX_APPROVED_CARD.number, 'ada@example.com');
  await call(`/api/test_helpers/payments/${disputed.id}/dispute`, { reason: 'product_not_received' });
  await pay(3200, 'eur', declining('generic_decline'), 'lee@example.com');
  await pay(780, 'gbp', declining('insufficient_funds'), 'kim@example.com');
  await call('/api/routing/rules', {
    name: 'Yen to Adyen',
    provider: 'adyen',
    conditions: [{ field: 'currency', operator: 'equals', value: 'JPY' }],
  });
  // the runtime's workers deliver the events in the background: wait for three (or 20 s at most)
  await Promise.race([new Promise<void>((done) => (onReceived = () => received >= 3 && done())), new Promise((done) => setTimeout(done, 20_000))]);
}
