import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { config } from '../../shared/config.ts';
import { type Chromium, launchChromium } from '../support/browser.ts';
import { advanceClockTo } from '../support/clocks.ts';
import { newMerchant } from '../support/merchant.ts';
import { payments } from '../support/payments.ts';
import { DUE, read, subscribedOnCard } from '../support/recovery.ts';
import { startTestGateway } from '../support/runtime.ts';

// The hosted payment link in Chromium: a renewal the issuer wants authenticated (4000002760003184 asks on every
// charge) e-mails the customer a link; they open it, pay, pass their bank's challenge and see the invoice paid.
let gateway: Gateway;
let chromium: Chromium;
const realPublicUrl = config.PUBLIC_API_URL;
beforeAll(async () => {
  [gateway, chromium] = await Promise.all([startTestGateway(), launchChromium()]);
  config.PUBLIC_API_URL = gateway.url;
});
afterEach(() => Promise.all(chromium.context.pages().map((p) => p.close())));
afterAll(async () => {
  config.PUBLIC_API_URL = realPublicUrl;
  await Promise.all([gateway?.close(), chromium?.close()]);
});

/** A renewal waiting for the customer: its invoice and the link the customer got. */
async function linkSent(card = '4000002760003184') {
  const { apiKey, merchantId } = await newMerchant();
  const { clockId, subscriptionId } = await subscribedOnCard(apiKey, card);
  await advanceClockTo(apiKey, clockId, `${DUE}T10:00:00Z`);
  const [required] = await read.events(merchantId, 'invoice.payment_action_required');
  return { apiKey, subscriptionId, invoiceId: required!.data.object.id as string, link: required!.data.object.hosted_payment_url as string };
}

describe('the hosted payment link in Chromium', () => {
  it('pays the invoice with the saved card after a 3-D Secure challenge', async () => {
    // Prepare
    const { apiKey, invoiceId, link } = await linkSent();
    const page = await chromium.context.newPage();
    await page.goto(link);
    expect(await page.title()).toMatch(/^Pay invoice INV-\d{6}$/);
    // Act: one click, the bank's challenge (the page goes on there by itself), Pass
    await page.getByRole('button', { name: /^Pay .+ with Visa •••• 3184$/ }).click();
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe('Authenticate (sandbox)');
    await page.getByRole('button', { name: 'Pass' }).click();
    // Assess: back on the link's page, paid; the invoice paid by an authenticated payment
    await expect.poll(() => page.title(), { timeout: 45_000 }).toMatch(/^Invoice INV-\d{6} is paid$/);
    expect(await page.getByRole('status').textContent()).toMatch(/^Paid on \d{4}-\d{2}-\d{2}\. Thank you\.$/);
    const invoice = await read.invoice(apiKey, invoiceId);
    expect(invoice.status).toBe('paid');
    expect((await payments.get(apiKey, invoice.payment_id)).body).toMatchObject({
      status: 'captured',
      amount: 2900,
      three_d_secure: { flow: 'challenge', result: 'authenticated' },
      metadata: { invoice_id: invoiceId },
    });
  });

  it('takes a new card typed with the keyboard, saying so when the bank declines it first', async () => {
    // Prepare
    const { apiKey, invoiceId, link } = await linkSent();
    const page = await chromium.context.newPage();
    await page.goto(link);
    const typeCard = async (number: string) => {
      await page.getByLabel('Card number').fill('');
      await page.getByLabel('Card number').focus();
      await page.keyboard.type(number);
      await page.keyboard.press('Tab');
      await page.keyboard.type('12 / 34');
      await page.keyboard.press('Tab');
      await page.keyboard.type('123');
      await page.keyboard.press('Enter');
    };
    // Act: a card the issuer declines, then one it approves
    await typeCard('4000 0000 0000 0002');
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 45_000 }).toContain('Your card was declined. Try another card.');
    await typeCard('4242 4242 4242 4242');
    // Assess
    await expect.poll(() => page.title(), { timeout: 45_000 }).toMatch(/is paid$/);
    expect((await read.invoice(apiKey, invoiceId)).status).toBe('paid');
  });
});
