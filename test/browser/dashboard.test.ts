import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// Reads the table's stream: a table of its own with one (the suite's shared table has none).
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('dashboard', { stream: true }));
import { handler as deliveryWorker } from '../../functions/workers/webhook-delivery.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { eventsQueue, type EventsMessage } from '../../shared/events/queue.ts';
import { seriousViolations } from '../support/axe.ts';
import { type Chromium, launchChromium } from '../support/browser.ts';
import { fakeContext, queueEvent } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { freshCard } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';
import { startTestGateway } from '../support/runtime.ts';
import { streamEvents } from '../support/stream.ts';

// The merchant's dashboard in Chromium against the local gateway: signed in by the e-mailed code through the
// HttpOnly cookie, every action through the API (asserted with the merchant's key), what a role may not do not
// offered, every page without serious axe violations and usable 390 px wide.
let gateway: Gateway;
let chromium: Chromium;
/** The events queue as the worker would get it: the test hands redeliveries to the delivery worker itself. */
const queued: EventsMessage[] = [];
const realSend = eventsQueue.send;
beforeAll(async () => {
  [gateway, chromium] = await Promise.all([startTestGateway(), launchChromium()]);
  eventsQueue.send = async (messages) => void queued.push(...messages);
});
afterEach(async () => {
  await Promise.all(chromium.context.pages().map((p) => p.close()));
  await chromium.context.clearCookies();
  queued.splice(0);
});
afterAll(async () => {
  eventsQueue.send = realSend;
  await Promise.all([gateway?.close(), chromium?.close()]);
});

const api = async (key: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { ...bearer(key), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
};

/** The newest code the local outbox (newest first) holds for `email`. */
async function codeFor(email: string): Promise<string> {
  const outbox = (await (await fetch(`${gateway.url}/_local/outbox`)).json()) as { data: { to: string; text: string }[] };
  const mail = outbox.data.find((m) => m.to === email);
  return /\b(\d{6})\b/.exec(mail!.text)![1]!;
}

/** A new page (390 px wide when asked), failing the test on any script error or CSP refusal it reports. */
async function newPage(width = 1280): Promise<Page> {
  const page = await chromium.context.newPage();
  await page.setViewportSize({ width, height: 844 });
  page.on('pageerror', (error) => expect.fail(`script error on ${page.url()}: ${error.message}`));
  page.on('console', (m) => m.type() === 'error' && /Content Security Policy/.test(m.text()) && expect.fail(m.text()));
  return page;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${gateway.url}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').waitFor();
  await page.getByLabel('Code').fill(await codeFor(email));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
}

const open = async (page: Page, name: string) => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
};

describe('the dashboard in Chromium', () => {
  it('signs in with the e-mailed code, lists the payments and finds them by the customer’s e-mail, the card’s last 4 digits and the id', async () => {
    // Prepare: the demo merchant's two payments for jane@example.com (Visa •••• 4242) and one for sam@example.com (•••• 4444)
    const merchant = await newMerchant({ payments: true });
    const card = { type: 'card', card: { number: '5555555555554444', exp_month: 12, exp_year: 2034, cvc: '737' } };
    const sams = await api(merchant.apiKey, 'POST', '/api/payments/create', {
      amount: 990,
      currency: 'eur',
      payment_method: card,
      customer: { email: 'sam@example.com' },
    });
    const page = await newPage();
    // Act
    await signIn(page, merchant.email);
    await open(page, 'Payments');
    const table = page.getByRole('region', { name: 'Payments' });
    await expect.poll(() => table.getByRole('row').count()).toBe(4); // the header and three payments
    await page.getByLabel('Search').fill('sam@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    const found = await table.textContent();
    await page.getByLabel('Search').fill('4242');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    const byCard = await table.textContent();
    await page.getByLabel('Search').fill(merchant.paymentId!);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const paymentPage = `${page.url()} ${await page.locator('.lead').textContent()}`;
    const banner = await page.getByRole('note').textContent();
    await page.getByRole('switch', { name: 'Test mode' }).click();
    await open(page, 'Payments');
    await page.getByText('No payments match.').waitFor();
    // Assess: the test-mode banner, gone in live mode, where there are no payments; Sam's payment alone, then the
    // payment by its id; the cookie out of the page's reach
    expect(banner).toBe('Test mode');
    expect(await page.getByRole('note').count()).toBe(0);
    expect(found).toContain('sam@example.com');
    expect(found).toContain('€9.90');
    expect(found).not.toContain('jane@example.com');
    expect(byCard).toContain('jane@example.com');
    expect(byCard).not.toContain('sam@example.com');
    expect(paymentPage).toBe(`${gateway.url}/dashboard/payments/${merchant.paymentId} $25.00 succeeded ${merchant.paymentId}`);
    expect(sams.status).toBe(200);
    expect(await page.evaluate(() => document.cookie)).toBe('');
  });

  it('pages through the payments a page of 25 at a time, with the list’s cursor', async () => {
    // Prepare: 26 payments
    const merchant = await newMerchant({ payments: false });
    const card = () => ({ type: 'card', card: { number: freshCard(), exp_month: 12, exp_year: 2034, cvc: '737' } });
    const made = await Promise.all(
      Array.from({ length: 26 }, (_, i) =>
        api(merchant.apiKey, 'POST', '/api/payments/create', { amount: 100 + i, currency: 'usd', payment_method: card() }),
      ),
    );
    const page = await newPage();
    await signIn(page, merchant.email);
    await open(page, 'Payments');
    const rows = page.getByRole('region', { name: 'Payments' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(26);
    const total = await page.getByRole('group', { name: 'Pages' }).textContent();
    const firstPage = await page.getByRole('region', { name: 'Payments' }).textContent();
    // Act
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    const last = await rows.nth(1).textContent();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => rows.count()).toBe(26);
    // Assess: the one payment not on the first page alone on the second; back on the first, no page before it
    expect(made.map((m) => m.status)).toEqual(Array(26).fill(200));
    expect(total).toContain('26 in all');
    const lastId = /pay_[0-9a-z]{26}/.exec(last!)![0];
    expect(made.map((m) => m.body.id)).toContain(lastId);
    expect(firstPage).not.toContain(lastId);
    expect(made.filter((m) => firstPage!.includes(m.body.id))).toHaveLength(25);
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(false);
  });

  it('shows a payment’s timeline; captures it and refunds part of it from the dialog', async () => {
    // Prepare
    const merchant = await newMerchant({ payments: true });
    const page = await newPage();
    await signIn(page, merchant.email);
    await page.goto(`${gateway.url}/dashboard/payments/${merchant.paymentId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await page.locator('.timeline li').count()).toBeGreaterThan(0);
    // Act: capture, then, by keyboard alone, open the refund dialog, leave it with Escape, open it again and refund
    // 10.00 of the 25.00
    await page.getByRole('button', { name: 'Capture' }).click();
    const refund = page.getByRole('button', { name: 'Refund' });
    await refund.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Refund this payment' });
    const focusInDialog = () => page.evaluate(() => document.activeElement?.closest('dialog') !== null);
    await expect.poll(focusInDialog).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    const focusAfterEscape = await page.evaluate(() => document.activeElement?.textContent);
    await page.keyboard.press('Enter');
    await expect.poll(focusInDialog).toBe(true);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('10.00');
    await page.keyboard.press('Enter');
    // Assess: the page and the API agree
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByRole('region', { name: 'Refunds' }).textContent()).toContain('$10.00');
    const { body } = await api(merchant.apiKey, 'GET', `/api/payments/${merchant.paymentId}`);
    expect(body).toMatchObject({ status: 'refunded', amount_captured: 2500, amount_refunded: 1000 });
    expect(await page.locator('.timeline').textContent()).toMatch(/captured[\s\S]*Refund/);
    expect(focusAfterEscape).toBe('Refund');
  });

  it('resends a webhook event to the endpoint, which receives it again', async () => {
    // Prepare: an endpoint at a local receiver that got the payment's event once
    const merchant = await newMerchant({ payments: false });
    const receiver = await startReceiver([200]);
    try {
      await api(merchant.apiKey, 'POST', '/api/webhooks/configure', { url: receiver.url, events: ['payment.succeeded'] });
      const card = { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '737' } };
      await api(merchant.apiKey, 'POST', '/api/payments/create', { amount: 1200, currency: 'eur', payment_method: card });
      await streamEvents(merchant.merchantId);
      await deliveryWorker(queueEvent(queued.splice(0), 'events'), fakeContext());
      await receiver.waitFor(1);
      const page = await newPage();
      await signIn(page, merchant.email);
      await open(page, 'Webhooks');
      // Act
      await page.getByRole('button', { name: /^Resend evt_/ }).click();
      await page.getByRole('status').filter({ hasText: 'resent to 1 endpoint' }).waitFor();
      await deliveryWorker(queueEvent(queued.splice(0), 'events'), fakeContext());
      // Assess: the same event, delivered again
      await receiver.waitFor(2);
      expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    } finally {
      await receiver.close();
    }
  });

  it('creates a routing rule and deletes it', async () => {
    // Prepare
    const merchant = await newMerchant({ payments: false });
    const page = await newPage();
    await signIn(page, merchant.email);
    await open(page, 'Routing');
    // Act: a rule for JPY payments to Adyen
    await page.getByLabel('Rule name').fill('Yen to Adyen');
    await page.getByLabel('Provider').selectOption('adyen');
    await page.getByLabel('Value').fill('JPY');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('cell', { name: 'Yen to Adyen', exact: true }).waitFor();
    const created = await api(merchant.apiKey, 'GET', '/api/routing/rules');
    await page.getByRole('button', { name: 'Delete Yen to Adyen' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No rules').waitFor();
    // Assess
    expect(created.body.data).toEqual([
      expect.objectContaining({ name: 'Yen to Adyen', provider: 'adyen', conditions: [{ field: 'currency', operator: 'equals', value: 'JPY' }] }),
    ]);
    expect((await api(merchant.apiKey, 'GET', '/api/routing/rules')).body.data).toEqual([]);
  });

  it('sets the business name, brand colour and support e-mail shoppers see', async () => {
    // Prepare
    const merchant = await newMerchant({ payments: false });
    const page = await newPage();
    await signIn(page, merchant.email);
    await open(page, 'Settings');
    // Act
    await page.getByLabel('Business name').fill('Acme Tees');
    await page.getByLabel('Brand colour (#rrggbb)').fill('#0F766E');
    await page.getByLabel('Support e-mail').fill('help@acme.test');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    // Assess: what the API holds, the colour as stored
    expect((await api(merchant.apiKey, 'GET', '/api/settings')).body).toMatchObject({
      business_name: 'Acme Tees',
      brand_color: '#0f766e',
      support_email: 'help@acme.test',
    });
  });

  it('offers an analyst, invited from the Team page, no Capture, Refund or key creation', async () => {
    // Prepare: the owner invites an analyst, who signs in and joins
    const merchant = await newMerchant({ payments: true });
    const analyst = `analyst-${randomUUID()}@example.test`;
    const page = await newPage();
    await signIn(page, merchant.email);
    await open(page, 'Team');
    await page.getByLabel('E-mail').fill(analyst);
    await page.getByLabel('Role', { exact: true }).selectOption('analyst');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('cell', { name: analyst, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInInvited(page, analyst);
    // Act
    await page.goto(`${gateway.url}/dashboard/payments/${merchant.paymentId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const buttons = await page.getByRole('button').allTextContents();
    const links = await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents();
    // Assess: read-only payments; no Developers, Team or Webhooks page offered; the API refuses a capture anyway
    expect(buttons).not.toContain('Capture');
    expect(buttons).not.toContain('Refund');
    expect(buttons).not.toContain('Void');
    expect(links).not.toContain('Developers');
    expect(links).toContain('Payments');
    await page.goto(`${gateway.url}/dashboard/developers`);
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    const forced = await page.evaluate(async (id) => {
      const session = await (await fetch('/api/auth/session')).json();
      const r = await fetch(`/api/payments/${id}/capture`, {
        method: 'POST',
        headers: { 'X-CSRF-Token': session.csrf_token, 'Content-Type': 'application/json' },
        body: '{}',
      });
      return { status: r.status, code: (await r.json()).error?.code };
    }, merchant.paymentId!);
    expect(forced).toEqual({ status: 403, code: 'permission_denied' });
  });

  it('has no serious axe violation on any page, nor sideways scrolling 390 px wide', async () => {
    // Prepare: a merchant with payments and a dispute to answer
    const merchant = await newMerchant({ payments: true });
    const disputed = await api(merchant.apiKey, 'POST', `/api/test_helpers/payments/${merchant.capturedPaymentId}/dispute`, { reason: 'fraudulent' });
    const page = await newPage(390);
    await page.goto(`${gateway.url}/dashboard`);
    await page.getByLabel('Email').waitFor();
    const found: Record<string, unknown> = { 'Sign in': await seriousViolations(page) };
    const wide: Record<string, number> = {};
    await signIn(page, merchant.email);
    // Act: every page of the navigation, the payment's page and its refund dialog
    const names = await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents();
    for (const name of names) {
      await open(page, name);
      await expect.poll(() => page.locator('.loading').count()).toBe(0);
      found[name] = await seriousViolations(page);
      wide[name] = await page.evaluate(() => document.documentElement.scrollWidth);
    }
    await page.goto(`${gateway.url}/dashboard/payments/${merchant.capturedPaymentId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    found.Payment = await seriousViolations(page);
    wide.Payment = await page.evaluate(() => document.documentElement.scrollWidth);
    await page.getByRole('button', { name: 'Refund' }).click();
    found['Refund dialog'] = await seriousViolations(page);
    await page.keyboard.press('Escape');
    await open(page, 'Disputes');
    await page.getByRole('button', { name: /^Evidence dis_/ }).click();
    found['Evidence dialog'] = await seriousViolations(page);
    // Assess
    expect(names).toEqual([
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
    ]);
    expect(disputed.status).toBe(200);
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
    expect(Object.entries(wide).filter(([, w]) => w > 390)).toEqual([]);
  });
});

/** An invited person's first sign-in: no merchant yet, so the page offers the invitation. */
async function signInInvited(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').waitFor();
  await page.getByLabel('Code').fill(await codeFor(email));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: /^Join / }).click();
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
}
