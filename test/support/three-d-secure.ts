/**
 * The shopper's browser through 3-D Secure, step by step: our hosted hand-off and return pages (their handlers), the
 * sandbox issuer's challenge page, and the Stripe and Adyen fakes' challenge pages (over HTTP, their forms submitted
 * as a browser would, the redirect back to our return page read, not followed).
 */
import { expect } from 'vitest';
import { handler as handOff } from '../../functions/hosted/3ds-hand-off.ts';
import { handler as returnPage } from '../../functions/hosted/3ds-return.ts';
import { handler as sandboxAnswer } from '../../functions/hosted/3ds-sandbox-answer.ts';
import { handler as sandboxPage } from '../../functions/hosted/3ds-sandbox.ts';
import { handler as updateSettings } from '../../functions/settings/update.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { apiEvent, type HttpResult, invokeHttp } from './lambda.ts';
import { bearer } from './merchant.ts';

/** The merchant's shop, whose pages the shopper comes back to (`return_url`): a checkout origin of the test mode. */
export const SHOP_ORIGIN = 'https://shop.example';

/** Lists the shop's origin in the merchant's checkout_origins, as a merchant must before sending a `return_url`. */
export async function allowShop(apiKey: string, origins: string[] = [SHOP_ORIGIN]): Promise<void> {
  const res = await invokeHttp(
    updateSettings,
    apiEvent({ method: 'PUT', path: '/api/settings', headers: bearer(apiKey), body: { checkout_origins: origins } }),
  );
  expect(res.status, res.rawBody).toBe(200);
}

/** One hosted step of ours, as the browser asks for it. */
export const hosted = (handler: HttpHandler, url: string): Promise<HttpResult> => {
  const { pathname, search } = new URL(url);
  return invokeHttp(handler, apiEvent({ path: `${pathname.replace(/^\/v1/, '')}${search}` }));
};

/** One hosted step answered with a redirect: where it sends the browser. */
export async function follow(handler: HttpHandler, url: string): Promise<string> {
  const res = await hosted(handler, url);
  expect(res.status, res.rawBody).toBe(303);
  return res.headers.location as string;
}

/** The shopper comes back to our return page (`url` with what the provider's redirect carried). */
export const shopperReturns = (url: string) => hosted(returnPage, url);

/**
 * The sandbox challenge page's `button` form (Pass or Fail) as the browser sends it: the answer route's URL, with the
 * page's hidden fields (our return page, the answer and the signature the page made for it).
 */
export async function sandboxButton(challengeUrl: string, button: 'Pass' | 'Fail'): Promise<string> {
  const page = await hosted(sandboxPage, challengeUrl);
  expect(page.status, page.rawBody).toBe(200);
  const form = [...page.rawBody.matchAll(/<form method="get" action="([^"]+)">(.*?)<\/form>/gs)].find((f) => f[2]!.includes(`>${button}</button>`));
  if (!form) throw new Error(`no ${button} form on the sandbox's challenge page`);
  const unescape = (text: string) => text.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'");
  const fields = [...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, unescape(m[2]!)]);
  const answer = new URL(unescape(form[1]!), challengeUrl);
  answer.search = new URLSearchParams(fields).toString();
  return answer.href;
}

/** The shopper through the sandbox issuer's challenge: hand-off, challenge page, its button; our return page's URL. */
export async function sandboxChallenge(nextActionUrl: string, answer: 'passed' | 'failed' = 'passed'): Promise<string> {
  const challengePage = await follow(handOff, nextActionUrl);
  expect(new URL(challengePage).pathname).toMatch(/\/hosted\/3ds\/sandbox$/);
  return follow(sandboxAnswer, await sandboxButton(challengePage, answer === 'passed' ? 'Pass' : 'Fail'));
}

/**
 * The shopper through a provider fake's challenge (a GET action): hand-off, the fake's page, its `button` form
 * submitted; the fake's redirect to our return page, with the fields it carries.
 */
export async function fakeChallenge(nextActionUrl: string, button: 'Pass' | 'Fail' = 'Pass'): Promise<string> {
  const challengeUrl = await follow(handOff, nextActionUrl);
  const html = await (await fetch(challengeUrl)).text();
  const form = [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>(.*?)<\/form>/gs)].find((f) => f[2]!.includes(`>${button}</button>`));
  if (!form) throw new Error(`no ${button} form on ${challengeUrl}`);
  const fields = [...form[2]!.matchAll(/<input [^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]);
  const pressed = new RegExp(`<button type="submit" name="([^"]+)" value="([^"]+)">${button}</button>`).exec(form[2]!);
  const body = new URLSearchParams([...fields, ...(pressed ? [[pressed[1]!, pressed[2]!]] : [])]);
  const back = await fetch(new URL(form[1]!, challengeUrl), { method: 'POST', body, redirect: 'manual' });
  expect([302, 303]).toContain(back.status);
  return back.headers.get('location')!;
}
