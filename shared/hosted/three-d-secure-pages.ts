import { cspSource } from '../domain/header-values.ts';
import type { ShopperStep } from '../domain/three-d-secure.ts';
import { type FileBody, Redirect } from '../http/response.ts';
import { formatMoney } from '../domain/tax.ts';
import type { BrandingRecord } from '../store/settings.ts';
import { escapeHtml, pageAnswer, styleHash } from './answers.ts';
import { shopperPage } from './look.ts';

const CSS =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}button{font:inherit;padding:.5rem 1rem;margin:.25rem}';

const page = (title: string, body: string, formAction: string): FileBody =>
  pageAnswer(
    `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${CSS}</style><main><h1>${escapeHtml(title)}</h1>${body}</main></html>`,
    `default-src 'none'; style-src ${styleHash(CSS)}; base-uri 'none'; form-action ${formAction}; frame-ancestors 'none'`,
  );

const hidden = (data: Record<string, string>) =>
  Object.entries(data)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');

/**
 * Where the shopper goes: a redirect, or (a provider that wants a POST) a form the shopper sends with one button; no
 * script, so it works anywhere.
 */
export function shopperStepAnswer(step: ShopperStep): Redirect | FileBody {
  if (step.go === 'merchant') return new Redirect(step.url);
  const { action } = step;
  if (action.method === 'GET') return new Redirect(action.url);
  const form = `<p>Your bank asks you to confirm this payment.</p><form method="post" action="${escapeHtml(action.url)}">${hidden(action.data ?? {})}<button type="submit">Continue to your bank</button></form>`;
  return page('Confirm your payment', form, cspSource(action.url));
}

/**
 * The sandbox issuer's challenge page: pass or fail, each a plain form (GET) back through the answer route with the
 * answer this page signed, which leads (by redirects) to the merchant's page.
 */
export function sandboxChallengePage(challenge: {
  returnUrl: string;
  merchantReturnUrl: string;
  answers: Record<'passed' | 'failed', string>;
  amount: number;
  currency: string;
  branding: BrandingRecord;
}): FileBody {
  const button = (answer: 'passed' | 'failed', label: string) =>
    `<form method="get" action="sandbox/answer">${hidden({ return_url: challenge.returnUrl, answer, signature: challenge.answers[answer] })}<button type="submit">${label}</button></form>`;
  const amount = escapeHtml(formatMoney(challenge.amount, challenge.currency));
  const body = [
    `<p class="amount">${amount}</p><p>To ${escapeHtml(challenge.branding.business_name)}.</p>`,
    `<p>Sandbox issuer: this card asks you to authenticate the payment.</p>${button('passed', 'Pass')}${button('failed', 'Fail')}`,
  ].join('');
  return shopperPage({
    title: 'Authenticate (sandbox)',
    branding: challenge.branding,
    root: '../',
    body,
    formAction: cspSource(challenge.merchantReturnUrl),
  });
}
