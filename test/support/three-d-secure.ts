/**
 * The shopper's browser through 3-D Secure, step by step: our hosted hand-off and return pages (their handlers), the
 * sandbox issuer's challenge page, and the Stripe and Adyen fakes' challenge pages (over HTTP, their forms submitted
 * as a browser would, the redirect back to our return page read, not followed).
 */
import { expect } from 'vitest';
import { handler as handOff } from '../../functions/hosted/3ds-hand-off.ts';
import { handler as returnPage } from '../../functions/hosted/3ds-return.ts';
import { handler as sandboxAnswer } from '../../functions/hosted/3ds-sandbox-answer.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { apiEvent, type HttpResult, invokeHttp } from './lambda.ts';

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

/** The shopper through the sandbox issuer's challenge: hand-off, challenge page, answer; our return page's URL. */
export async function sandboxChallenge(nextActionUrl: string, answer: 'passed' | 'failed' = 'passed'): Promise<string> {
  const challengePage = new URL(await follow(handOff, nextActionUrl));
  const answerUrl = new URL('answer', challengePage);
  answerUrl.search = new URLSearchParams({ return_url: challengePage.searchParams.get('return_url')!, answer }).toString();
  return follow(sandboxAnswer, answerUrl.toString());
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
