import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { config } from '../../shared/config.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { type Chromium, launchChromium } from '../support/browser.ts';
import { advanceClockTo } from '../support/clocks.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { DUE, read, subscribedOnCard } from '../support/recovery.ts';
import { startTestGateway } from '../support/runtime.ts';

// Payment links in Chromium, against the test gateway and the sandbox: a shopper opens the link, pays, reads the
// receipt; every shopper page is checked by axe-core and at 390 px wide.
let gateway: Gateway;
let chromium: Chromium;
const realPublicUrl = config.PUBLIC_API_URL;
beforeAll(async () => {
  [gateway, chromium] = await Promise.all([startTestGateway(), launchChromium()]);
  // the invoice page's link is made from the stage's public URL
  config.PUBLIC_API_URL = gateway.url;
});
afterEach(() => Promise.all(chromium.context.pages().map((p) => p.close())));
afterAll(async () => {
  config.PUBLIC_API_URL = realPublicUrl;
  await Promise.all([gateway?.close(), chromium?.close()]);
});

const TSHIRTS = { line_items: [{ name: 'T-shirt', amount: 2000, quantity: 2 }], currency: 'eur', tax_rate: 20 };

async function api(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { ...bearer(key), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : null,
  });
  return { status: res.status, body: await res.json() };
}

/** A merchant with its branding, and a link. */
async function linkOf(extra: Record<string, unknown> = {}) {
  const { apiKey, merchantId } = await newMerchant();
  await api(apiKey, 'PUT', '/api/settings', { business_name: 'Acme Tees', brand_color: '#0f766e', support_email: 'help@acme.example' });
  const { body: link } = await api(apiKey, 'POST', '/api/payment_links', { ...TSHIRTS, ...extra });
  return { apiKey, merchantId, link };
}

/** No serious or critical axe-core violation, and nothing wider than 390 px. */
async function checkPage(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  const violations = (await page.evaluate(`${axe.source}; axe.run(document).then((r) => r.violations)`)) as axe.Result[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  expect(serious, await page.title()).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), await page.title()).toBeLessThanOrEqual(390);
}

async function typeCard(page: Page, number: string, email?: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
  await page.getByLabel('Security code (CVC)').fill('123');
  if (email) await page.getByLabel('E-mail for the receipt (optional)').fill(email);
  await page.getByRole('button', { name: /^Pay / }).click();
}

describe('a payment link in Chromium', () => {
  it('shows the business, both lines, tax and total; paid with 4242… it shows the receipt, e-mails it and counts the payment', async () => {
    // Prepare
    const { apiKey, link } = await linkOf({ after_completion: { type: 'hosted_confirmation', message: 'Your T-shirts ship tomorrow.' } });
    const page = await chromium.context.newPage();
    await page.goto(link.url);
    // Assess the checkout
    expect(await page.title()).toBe('Pay Acme Tees');
    const text = await page.locator('main').innerText();
    for (const shown of ['T-shirt', '2 × EUR 20.00', 'EUR 40.00', 'Tax (20 %)', 'EUR 8.00', 'EUR 48.00']) expect(text).toContain(shown);
    expect(await page.locator('header').innerText()).toBe('Acme Tees');
    await checkPage(page);
    // Act
    await typeCard(page, '4242 4242 4242 4242', 'shopper@example.com');
    // Assess the receipt
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe('Payment received');
    const receipt = await page.locator('main').innerText();
    expect(receipt).toContain('Thank you — your payment to Acme Tees is complete.');
    expect(receipt).toContain('Your T-shirts ship tomorrow.');
    expect(receipt).toMatch(/Visa •••• 4242/);
    await checkPage(page);
    const paymentId = new URL(page.url()).searchParams.get('payment_id')!;
    const { body: payment } = await api(apiKey, 'GET', `/api/payments/${paymentId}`);
    expect(payment).toMatchObject({ status: 'captured', amount: 4800, currency: 'EUR', payment_link_id: link.id });
    expect((await api(apiKey, 'GET', `/api/payment_links/${link.id}`)).body.paid_count).toBe(1);
    const mail = (await listLocalOutbox()).find((m) => m.to === 'shopper@example.com' && m.text.includes(paymentId));
    expect(mail?.subject).toBe('Your receipt from Acme Tees');
    // Act: the receipt page again (a reload) counts nothing more
    await page.reload();
    expect((await api(apiKey, 'GET', `/api/payment_links/${link.id}`)).body.paid_count).toBe(1);
  });

  it('pays through a 3-D Secure challenge, back to the receipt', async () => {
    // Prepare
    const { apiKey, link } = await linkOf();
    const page = await chromium.context.newPage();
    await page.goto(link.url);
    // Act
    await typeCard(page, '4000 0027 6000 3184');
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe('Authenticate (sandbox)');
    await checkPage(page);
    await page.getByRole('button', { name: 'Pass' }).click();
    // Assess
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe('Payment received');
    const paymentId = new URL(page.url()).searchParams.get('payment_id')!;
    expect((await api(apiKey, 'GET', `/api/payments/${paymentId}`)).body).toMatchObject({
      status: 'captured',
      payment_link_id: link.id,
      three_d_secure: { flow: 'challenge', result: 'authenticated' },
    });
    expect((await api(apiKey, 'GET', `/api/payment_links/${link.id}`)).body.paid_count).toBe(1);
  });

  it('says a declined card in words, then takes another; a typo stays in the form with its error', async () => {
    // Prepare
    const { apiKey, link } = await linkOf();
    const page = await chromium.context.newPage();
    await page.goto(link.url);
    // Act: a typo (Luhn), then a card the issuer declines, then one it approves
    await typeCard(page, '4242 4242 4242 4241');
    // Assess: the error is next to the field, what was typed is still there, nothing was sent
    expect(await page.locator('#number-error').innerText()).toBe('This card number has a typo: check the digits.');
    expect(await page.getByLabel('Card number').inputValue()).toBe('4242 4242 4242 4241');
    expect(await page.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    await checkPage(page);
    await typeCard(page, '4000 0000 0000 0002');
    await expect.poll(() => page.locator('.alert').innerText(), { timeout: 45_000 }).toBe('Your card was declined. Try another card.');
    await checkPage(page);
    await typeCard(page, '4242 4242 4242 4242');
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe('Payment received');
    expect((await api(apiKey, 'GET', `/api/payment_links/${link.id}`)).body.paid_count).toBe(1);
  });

  it('says a deactivated link is closed, and one at its limit is sold out, and takes nothing', async () => {
    // Prepare
    const { apiKey, link } = await linkOf({ limit: 1 });
    const page = await chromium.context.newPage();
    await page.goto(link.url);
    const stale = await chromium.context.newPage();
    await stale.goto(link.url);
    await typeCard(page, '4242 4242 4242 4242');
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe('Payment received');
    // Act: a second shopper, whose page was open before the last place went
    await typeCard(stale, '5555 5555 5555 4444');
    // Assess
    await expect.poll(() => stale.title(), { timeout: 45_000 }).toBe('This payment link is sold out');
    expect(await stale.locator('.alert').innerText()).toContain('help@acme.example');
    await checkPage(stale);
    // Act: switched off
    await api(apiKey, 'PUT', `/api/payment_links/${link.id}`, { active: false });
    await stale.goto(link.url);
    // Assess
    expect(await stale.title()).toBe('This payment link is closed');
    expect(await stale.getByRole('button').count()).toBe(0);
    await checkPage(stale);
    const listed = await api(apiKey, 'GET', '/api/payments/list?limit=10');
    expect(listed.body.data.filter((p: { payment_link_id: string }) => p.payment_link_id === link.id)).toHaveLength(1);
  });

  it("keeps a typo on the invoice page in the form, next to its field, and shows the invoice's business, lines and PDF", async () => {
    // Prepare: a renewal waiting for the customer, who got the invoice page's link
    const { apiKey, merchantId } = await newMerchant();
    await api(apiKey, 'PUT', '/api/settings', { business_name: 'Acme Tees' });
    const { clockId } = await subscribedOnCard(apiKey, '4000002760003184');
    await advanceClockTo(apiKey, clockId, `${DUE}T10:00:00Z`);
    const [required] = await read.events(merchantId, 'invoice.payment_action_required');
    const page = await chromium.context.newPage();
    await page.goto(required!.data.object.hosted_payment_url as string);
    // Act
    await page.getByLabel('Card number').fill('4242 4242 4242 4241');
    await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
    await page.getByLabel('Security code (CVC)').fill('123');
    await page.getByRole('button', { name: /^Pay [^w]+$/ }).click();
    // Assess
    expect(await page.locator('#number-error').innerText()).toBe('This card number has a typo: check the digits.');
    expect(await page.getByLabel('Card number').inputValue()).toBe('4242 4242 4242 4241');
    const text = await page.locator('main').innerText();
    expect(text).toContain('To Acme Tees');
    expect(text).toContain('Total');
    expect(await page.getByRole('link', { name: 'Download the invoice (PDF)' }).count()).toBe(1);
    await checkPage(page);
  });
});
