import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import type { DemoCheckout, Exchange } from '../../infra/local/demo-checkout/server.ts';
import { type Chromium, launchChromium } from '../support/browser.ts';
import { seriousViolations } from '../support/axe.ts';
import { fieldsOf, openShop, typeCardAndPay } from '../support/demo-shop.ts';
import { startTestGateway } from '../support/runtime.ts';

const CARD = '4242424242424242';

/** The receipt the shop's page shows once paid, and how many Pay buttons are left. */
async function readReceipt(page: Page) {
  return {
    heading: await page.getByRole('heading', { level: 2 }).textContent(),
    amount: await page.locator('#receipt-amount').textContent(),
    card: await page.locator('#receipt-card').textContent(),
    paymentId: (await page.locator('#receipt-payment').textContent())!,
    payButtons: await page.getByRole('button', { name: /Pay/ }).count(),
  };
}

const shop = (gateway: Gateway, exchanges: Exchange[] = []) => openShop(gateway, { exchanges });

describe('hosted card fields in Chromium', () => {
  let gateway: Gateway;
  let chromium: Chromium;
  const closing: Array<DemoCheckout | Server> = [];
  beforeAll(async () => {
    [gateway, chromium] = await Promise.all([startTestGateway(), launchChromium()]);
  });
  afterEach(async () => {
    await Promise.all(chromium.context.pages().map((p) => p.close()));
    await Promise.all(
      closing.splice(0).map((s) => {
        if ('url' in s) return s.close();
        s.closeAllConnections();
        return new Promise((done) => s.close(done));
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([gateway?.close(), chromium?.close()]);
  });

  it('takes a card typed by a shopper; the shop gets a pm_ by postMessage, charges it, and never sees the number', async () => {
    // Prepare: the shop's page and server, every request the page makes and every message it receives recorded
    const exchanges: Exchange[] = [];
    const { checkout } = await shop(gateway, exchanges);
    closing.push(checkout);
    const page = await chromium.context.newPage();
    const pageRequests: Request[] = [];
    const frameRequests: Request[] = [];
    page.on('request', (r) => (r.frame() === page.mainFrame() ? pageRequests : frameRequests).push(r));
    await page.addInitScript(() => {
      if (window !== window.top) return;
      const seen: unknown[] = [];
      Object.assign(window, { seenMessages: seen });
      window.addEventListener('message', (e) => seen.push({ origin: e.origin, data: e.data }));
    });
    await page.goto(checkout.url);
    // Act: the shopper types with the keyboard only, tabs to Pay and presses Enter
    await typeCardAndPay(page, CARD);
    // Assess: paid, with the pm_ the frame posted to the page's exact origin
    await expect.poll(() => page.locator('#result').getAttribute('data-outcome'), { timeout: 45_000 }).toBe('paid');
    const receipt = await readReceipt(page);
    expect(receipt).toEqual({
      heading: 'Thank you — your order is paid',
      amount: '$25.00',
      card: 'Visa •••• 4242',
      paymentId: expect.stringMatching(/^pay_[0-9a-z]{26}$/),
      payButtons: 0,
    });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const messages = (
      await page.evaluate(() => (window as unknown as { seenMessages: { origin: string; data: { type: string } }[] }).seenMessages)
    ).filter((m) => m.data.type === 'payment_method');
    expect(messages).toEqual([
      {
        origin: new URL(gateway.url).origin,
        data: {
          type: 'payment_method',
          payment_method: { id: expect.stringMatching(/^pm_/), card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 } },
        },
      },
    ]);
    // Assess: the number went from the frame to the API alone; the shop's page and server never carried it
    expect(frameRequests.some((r) => r.url().endsWith('/api/payment_methods') && r.postData()?.includes(CARD))).toBe(true);
    const pageTraffic = await Promise.all(
      pageRequests.map(async (r) => [r.url(), JSON.stringify(await r.allHeaders()), r.postData() ?? ''].join('\n')),
    );
    const serverTraffic = exchanges.map((e) => JSON.stringify(e));
    expect(pageRequests.map((r) => new URL(r.url()).pathname)).toEqual(expect.arrayContaining(['/', '/hosted/card-fields.js', '/shop.js', '/pay']));
    expect(serverTraffic.some((e) => e.includes('/api/payments/create'))).toBe(true);
    for (const traffic of [...pageTraffic, ...serverTraffic, JSON.stringify(messages)]) expect(traffic).not.toContain(CARD);
    // Act + Assess: the order paid, the shop's server refuses to charge it again (one payment created, the receipt's)
    const paidOrder = exchanges.find((e) => e.direction === 'received' && e.url === '/pay')!;
    const again = await fetch(`${checkout.url}/pay`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: paidOrder.body });
    expect([again.status, await again.json()]).toEqual([409, { message: 'This order is already paid, or being paid.' }]);
    const created = exchanges.filter((e) => e.direction === 'sent' && e.url.endsWith('/api/payments/create'));
    expect(created.map((e) => (JSON.parse(e.answer) as { id: string }).id)).toEqual([receipt.paymentId]);
  });

  it('tells the shopper in words when the card is declined, and lets them try again', async () => {
    // Prepare
    const exchanges: Exchange[] = [];
    const { checkout } = await shop(gateway, exchanges);
    closing.push(checkout);
    const page = await chromium.context.newPage();
    await page.goto(checkout.url);
    // Act: a card the issuer declines for want of funds
    await typeCardAndPay(page, '4000000000009995');
    // Assess: the reason in words (no status, no code), the Pay button back for another card; the shop's server said 402
    await expect.poll(() => page.locator('#result').getAttribute('data-outcome'), { timeout: 45_000 }).toBe('failed');
    expect(await page.locator('#result').textContent()).toBe(
      'Your card was declined because there are not enough funds on it. Nothing was charged: try another card, or ask your bank.',
    );
    expect(await page.getByRole('button', { name: 'Pay $25.00' }).isEnabled()).toBe(true);
    expect(exchanges.filter((e) => e.direction === 'received' && e.url === '/pay').map((e) => e.status)).toEqual([402]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows a number that fails the Luhn check as an error, the field aria-invalid, as the shopper types', async () => {
    // Prepare
    const { checkout } = await shop(gateway);
    closing.push(checkout);
    const page = await chromium.context.newPage();
    await page.goto(checkout.url);
    const fields = fieldsOf(page);
    // Act
    await fields.locator('#number').focus();
    await page.keyboard.type('4242424242424241');
    // Assess: announced (aria-live) and tied to the field (aria-describedby)
    const number = fields.locator('#number');
    await expect.poll(() => number.getAttribute('aria-invalid')).toBe('true');
    expect(await fields.locator('#number-error').textContent()).toBe('The card number is not valid: check it for a typo.');
    expect(await fields.locator('#number-error').getAttribute('aria-live')).toBe('polite');
    expect(await number.getAttribute('aria-describedby')).toBe('number-error');
    expect(await fields.locator('#brand').textContent()).toBe('Visa');
    // Act + Assess: the last digit corrected, the error goes
    await page.keyboard.press('Backspace');
    await page.keyboard.type('2');
    await expect.poll(() => number.getAttribute('aria-invalid')).toBe('false');
    expect(await fields.locator('#number-error').textContent()).toBe('');
    expect(await number.inputValue()).toBe('4242 4242 4242 4242');
  });

  it('shows an expired date and a short CVC as errors when the shopper leaves the field', async () => {
    // Prepare
    const { checkout } = await shop(gateway);
    closing.push(checkout);
    const page = await chromium.context.newPage();
    await page.goto(checkout.url);
    const fields = fieldsOf(page);
    // Act: an American Express number (CVC of 4), last year's date, a CVC of 3
    await fields.locator('#number').focus();
    await page.keyboard.type('378282246310005');
    await page.keyboard.press('Tab');
    await page.keyboard.type(`12${String((new Date().getFullYear() - 1) % 100).padStart(2, '0')}`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Tab');
    // Assess
    await expect.poll(() => fields.locator('#cvc').getAttribute('aria-invalid')).toBe('true');
    expect(await fields.locator('#expiry-error').textContent()).toBe('The card has expired.');
    expect(await fields.locator('#cvc-error').textContent()).toBe('The security code has 4 digits.');
    expect(await fields.locator('#number').getAttribute('aria-invalid')).toBe('false');
  });

  it('cannot be framed by a page of another origin, even one that names an allowed origin', async () => {
    // Prepare: a page on an origin the merchant did not list, framing the fields with the shop's origin
    const { checkout, publishableKey } = await shop(gateway);
    closing.push(checkout);
    const src = `${gateway.url}/hosted/card-fields?key=${publishableKey}&origin=${encodeURIComponent(checkout.url)}`;
    const other = createServer((_req, res) =>
      res.end(`<!doctype html><title>Another site</title><iframe title="Card details" src="${src}"></iframe>`),
    );
    closing.push(other);
    await new Promise<void>((ready) => other.listen(0, '127.0.0.1', ready));
    const page = await chromium.context.newPage();
    // Act
    const framed = page.waitForResponse((r) => r.url() === src);
    const refused = page.waitForEvent('console', (m) => m.text().includes('frame-ancestors'));
    await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
    // Assess: the API answered, with the shop alone as an ancestor, and Chromium refused to show it here
    expect((await (await framed).allHeaders())['content-security-policy']).toContain(`frame-ancestors ${checkout.url};`.slice(0, -1));
    expect((await refused).text()).toContain(`violates the following Content Security Policy directive: "frame-ancestors ${checkout.url}"`);
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    expect(await frame.locator('#number').count()).toBe(0);
  });
});
