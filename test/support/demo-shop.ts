import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { type Exchange, startDemoCheckout } from '../../infra/local/demo-checkout/server.ts';
import type { Provider } from './connected-accounts.ts';
import { FAKE_CREDENTIALS } from '../../infra/local/fakes/index.ts';
import { bearer, newMerchant } from './merchant.ts';

export interface ShopOptions {
  /** every request the shop's server receives and makes */
  exchanges?: Exchange[];
  /** a provider fake connected as the merchant's test account, and every payment routed to it */
  connected?: Provider;
  /** the payments' routing without a connected account, e.g. `stripe` for Stripe's sandbox */
  routing?: string;
}

/** A merchant with a publishable key whose checkout origin is its own demo shop, served beside the API. */
export async function openShop(gateway: Gateway, options: ShopOptions = {}) {
  const { apiKey } = await newMerchant();
  const api = (method: string, path: string, body: unknown) =>
    fetch(`${gateway.url}${path}`, { method, headers: { ...bearer(apiKey), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const created = await api('POST', '/api/api-keys', { name: 'Checkout page', mode: 'test', type: 'publishable' });
  const { key } = (await created.json()) as { key: string };
  if (options.connected) {
    const connector = await api('POST', '/api/connectors', { provider: options.connected, credentials: FAKE_CREDENTIALS[options.connected] });
    expect(connector.status, await connector.clone().text()).toBe(200);
  }
  const checkout = await startDemoCheckout({
    port: 0,
    apiUrl: gateway.url,
    publishableKey: key,
    secretKey: apiKey,
    ...((options.connected ?? options.routing) ? { routing: options.connected ?? options.routing } : {}),
    ...(options.exchanges ? { record: (e: Exchange) => options.exchanges!.push(e) } : {}),
  });
  const settings = await api('PUT', '/api/settings', { checkout_origins: [checkout.url] });
  expect(settings.status).toBe(200);
  return { checkout, publishableKey: key, apiKey };
}

/** The card fields frame of the page, once its form is there. */
export const fieldsOf = (page: Page) => page.frameLocator('iframe[title="Card details"]');

/** The shopper types a card (expiry 12/34, a CVC of its brand's length) with the keyboard only and presses Pay. */
export async function typeCardAndPay(page: Page, number: string): Promise<void> {
  await fieldsOf(page).locator('#number').focus();
  await page.keyboard.type(number);
  await page.keyboard.press('Tab');
  await page.keyboard.type('1234');
  await page.keyboard.press('Tab');
  await page.keyboard.type(number.length === 15 ? '1234' : '123');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
}
