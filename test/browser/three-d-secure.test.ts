import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DemoCheckout, Exchange } from '../../infra/local/demo-checkout/server.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { config } from '../../shared/config.ts';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { seriousViolations } from '../support/axe.ts';
import { type Chromium, launchChromium } from '../support/browser.ts';
import { openShop, type ShopOptions, typeCardAndPay } from '../support/demo-shop.ts';
import { bearer } from '../support/merchant.ts';
import { startTestGateway } from '../support/runtime.ts';

// A shopper on the demo shop pays with a card whose bank asks for 3-D Secure: the shop's page sends them to the
// payment's next action, they answer the issuer's challenge page (the sandbox's, the Stripe fake's, the Adyen fake's)
// and come back to the shop, whose server reads the payment. The tests assert what the shop's server read, and what
// the provider holds.
// Adyen's 4917… is sent to its challenge by a POST (our hand-off page's form), 5454… by a redirect.
const CHALLENGES = {
  sandbox: { passed: '4000000000003220', failed: '4000000000003220' },
  stripe: { passed: '4000000000003220', failed: '4000000000003220' },
  adyen: { passed: '4917610000000000', failed: '5454545454545454' },
} as const;
const FRICTIONLESS = '4000000000003055';
type Issuer = keyof typeof CHALLENGES;
type PaymentRead = { id: string; status: string; attempts: { id: string }[]; next_action: { redirect_to_url: { url: string } } | null };
const CHALLENGE_TITLE: Record<Issuer, string> = {
  sandbox: 'Authenticate (sandbox)',
  stripe: '3D Secure 2 test page',
  adyen: '3D Secure 2 test challenge',
};
const SHOP: Record<Issuer, ShopOptions> = { sandbox: { routing: 'stripe' }, stripe: { connected: 'stripe' }, adyen: { connected: 'adyen' } };

let gateway: Gateway;
let chromium: Chromium;
let fakes: ProviderFakes;
const closing: DemoCheckout[] = [];
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
  [gateway, chromium] = await Promise.all([startTestGateway(), launchChromium()]);
});
afterEach(async () => {
  await Promise.all(chromium.context.pages().map((p) => p.close()));
  await Promise.all(closing.splice(0).map((shop) => shop.close()));
});
afterAll(async () => {
  await Promise.all([gateway?.close(), chromium?.close(), fakes?.close()]);
});

async function shopFor(issuer: Issuer) {
  const exchanges: Exchange[] = [];
  const shop = await openShop(gateway, { ...SHOP[issuer], exchanges });
  closing.push(shop.checkout);
  const page = await chromium.context.newPage();
  await page.goto(shop.checkout.url);
  const readPayment = async (id: string) =>
    (await (await fetch(`${gateway.url}/api/payments/${id}`, { headers: bearer(shop.apiKey) })).json()) as PaymentRead;
  /** the payment the shop's server created (its answer to the create) */
  const created = () => {
    const create = exchanges.find((e) => e.direction === 'sent' && e.url.endsWith('/api/payments/create'));
    return JSON.parse(create!.answer) as PaymentRead;
  };
  return { ...shop, page, exchanges, readPayment, created };
}

/** The shopper types the card, presses Pay, and lands on the issuer's challenge page. */
async function toChallenge(page: Page, issuer: Issuer, outcome: 'passed' | 'failed' = 'passed') {
  await typeCardAndPay(page, CHALLENGES[issuer][outcome]);
  await onToIssuer(page, issuer);
}

/** From the hand-off to the issuer's challenge page (through our form first when the issuer wants a POST). */
async function onToIssuer(page: Page, issuer: Issuer) {
  await expect.poll(() => page.title(), { timeout: 45_000 }).toBeOneOf(['Confirm your payment', CHALLENGE_TITLE[issuer]]);
  if ((await page.title()) === 'Confirm your payment') await page.getByRole('button', { name: 'Continue to your bank' }).click();
  await expect.poll(() => page.title(), { timeout: 45_000 }).toBe(CHALLENGE_TITLE[issuer]);
}

/** Back at the shop: what its page says, and the payment id its server was handed. */
async function backAtShop(page: Page) {
  await page.waitForURL(/\/done\?payment_id=pay_/, { timeout: 45_000 });
  const result = page.locator('#result');
  const outcome = await result.getAttribute('data-outcome');
  return {
    paymentId: new URL(page.url()).searchParams.get('payment_id')!,
    outcome,
    // paid: the receipt's heading and the payment it names; else what the shop says
    text: await (outcome === 'paid' ? page.getByRole('heading', { level: 2 }) : result).textContent(),
    receipt: outcome === 'paid' ? await page.locator('#receipt-payment').textContent() : null,
  };
}

/** Authorizations the issuer's provider holds for the payment (the sandbox's books, or the fake's). */
function heldFor(issuer: Issuer, payment: PaymentRead) {
  if (issuer === 'sandbox') return [...sandboxBooks.authorizations.values()].filter((a) => a.paymentId === payment.id);
  const attempts = new Set(payment.attempts.map((a) => a.id));
  return fakes[issuer].holds().filter((hold) => hold.idempotencyKey && attempts.has(hold.idempotencyKey));
}

describe.each(['sandbox', 'stripe', 'adyen'] as const)('3-D Secure in Chromium at %s', (issuer) => {
  it('a challenge passed: the shopper is taken through it and back; the shop reads the payment succeeded, authenticated', async () => {
    // Prepare
    const { page, exchanges, readPayment, apiKey } = await shopFor(issuer);
    // Act
    await toChallenge(page, issuer);
    await page.getByRole('button', { name: 'Pass' }).click();
    // Assess: the shop's page, what its server read from the API, the provider's hold, the challenge and the return on
    // the payment's timeline
    const back = await backAtShop(page);
    expect(back).toEqual({
      paymentId: expect.stringMatching(/^pay_/),
      outcome: 'paid',
      text: 'Thank you — your order is paid',
      receipt: back.paymentId,
    });
    const read = exchanges.find((e) => e.direction === 'sent' && e.method === 'GET' && e.url.endsWith(`/api/payments/${back.paymentId}`));
    expect(JSON.parse(read!.answer)).toMatchObject({
      status: 'succeeded',
      next_action: null,
      three_d_secure: { flow: 'challenge', result: 'authenticated', liability_shift: true },
    });
    expect(heldFor(issuer, await readPayment(back.paymentId))).toHaveLength(1);
    const timeline = await fetch(`${gateway.url}/api/payments/${back.paymentId}/timeline`, { headers: bearer(apiKey) });
    const changes = ((await timeline.json()) as { data: { object: string; change: string }[] }).data.filter((e) => e.object === 'payment');
    expect(changes.map((e) => e.change)).toEqual(['payment.created', 'payment.requires_action', 'payment.succeeded']);
  });

  it('a challenge failed: back at the shop, not paid (authentication_required), nothing held', async () => {
    // Prepare
    const { page, readPayment } = await shopFor(issuer);
    // Act
    await toChallenge(page, issuer, 'failed');
    await page.getByRole('button', { name: 'Fail' }).click();
    // Assess
    const back = await backAtShop(page);
    expect(back).toMatchObject({
      outcome: 'failed',
      text: 'Your card was declined because your bank could not confirm that it was you. Nothing was charged: try another card, or ask your bank.',
    });
    expect(heldFor(issuer, await readPayment(back.paymentId)).filter((h) => h.state !== 'voided')).toEqual([]);
  });

  it('two returns at once (the challenge passed in two tabs at the same moment) authorize once', async () => {
    // Prepare: the payment's next action opened in a second tab too
    const { page, readPayment, created } = await shopFor(issuer);
    await toChallenge(page, issuer);
    const second = await chromium.context.newPage();
    await second.goto(created().next_action!.redirect_to_url.url);
    await onToIssuer(second, issuer);
    // Act
    await Promise.all([page, second].map((tab) => tab.getByRole('button', { name: 'Pass' }).click()));
    // Assess: both tabs back at the shop with the one payment, paid; one authorization held
    const [one, two] = await Promise.all([backAtShop(page), backAtShop(second)]);
    expect(two).toEqual(one);
    expect(one).toMatchObject({ outcome: 'paid', text: 'Thank you — your order is paid', receipt: one.paymentId });
    expect(heldFor(issuer, await readPayment(one.paymentId))).toHaveLength(1);
  });

  it('a return after the merchant voided the payment changes nothing: the shop reads it voided, nothing held', async () => {
    // Prepare: the shopper on the challenge page; the merchant voids meanwhile
    const { page, apiKey, created, readPayment } = await shopFor(issuer);
    await toChallenge(page, issuer);
    const voided = await fetch(`${gateway.url}/api/payments/${created().id}/void`, { method: 'POST', headers: bearer(apiKey) });
    expect(voided.status, await voided.clone().text()).toBe(200);
    // Act
    await page.getByRole('button', { name: 'Pass' }).click();
    // Assess
    const back = await backAtShop(page);
    expect(back).toEqual({
      paymentId: created().id,
      outcome: 'failed',
      text: 'This payment was cancelled, so your order is not paid.',
      receipt: null,
    });
    expect(heldFor(issuer, await readPayment(back.paymentId)).filter((h) => h.state !== 'voided')).toEqual([]);
  });
});

describe("our hand-off page (Adyen's challenge wants a POST) in Chromium", () => {
  it('shows the business and the amount in the shared look, lets the form post to the bank alone, and goes on', async () => {
    // Prepare: the merchant's business name set; the shopper pays with Adyen's POST-challenge card
    const { page, apiKey, readPayment } = await shopFor('adyen');
    const named = await fetch(`${gateway.url}/api/settings`, {
      method: 'PUT',
      headers: { ...bearer(apiKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ business_name: 'Tee Shop Ltd' }),
    });
    expect(named.status).toBe(200);
    const handOff = page.waitForResponse((r) => /\/hosted\/3ds\/pay_/.test(r.url()));
    // Act
    await typeCardAndPay(page, CHALLENGES.adyen.passed);
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe('Confirm your payment');
    // Assess: to whom and how much, in the shared stylesheet; the form may post here and to the bank's page only
    const csp = (await (await handOff).allHeaders())['content-security-policy'];
    const bank = new URL((await page.locator('form').getAttribute('action'))!).origin;
    expect(csp).toContain(`form-action 'self' ${bank}`);
    expect(csp).toContain("default-src 'none'");
    expect({
      business: await page.locator('header.brand').textContent(),
      amount: await page.locator('.amount').textContent(),
      to: await page.getByText('To Tee Shop Ltd.').count(),
      stylesheet: await page.locator('link[rel=stylesheet]').getAttribute('href'),
    }).toEqual({ business: 'Tee Shop Ltd', amount: 'USD 25.00', to: 1, stylesheet: expect.stringMatching(/^\.\.\/checkout\.css\?accent=/) });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Act + Assess: the keyboard sends the form on to the bank; the challenge passed, paid
    await page.getByRole('button', { name: 'Continue to your bank' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.title(), { timeout: 45_000 }).toBe(CHALLENGE_TITLE.adyen);
    await page.getByRole('button', { name: 'Pass' }).click();
    const back = await backAtShop(page);
    expect(back.outcome).toBe('paid');
    expect((await readPayment(back.paymentId)).status).toBe('succeeded');
  });
});

describe.each(['sandbox', 'stripe'] as const)('a frictionless card in Chromium at %s', (issuer) => {
  it('pays without leaving the shop, authenticated frictionless', async () => {
    // Prepare
    const { page, exchanges, created } = await shopFor(issuer);
    // Act
    await typeCardAndPay(page, FRICTIONLESS);
    // Assess
    await expect.poll(() => page.locator('#result').getAttribute('data-outcome'), { timeout: 45_000 }).toBe('paid');
    expect(new URL(page.url()).pathname).toBe('/');
    expect(created()).toMatchObject({ status: 'succeeded', three_d_secure: { flow: 'frictionless', result: 'authenticated' } });
    expect(exchanges.filter((e) => e.url.includes('/hosted/3ds/'))).toEqual([]);
  });
});
