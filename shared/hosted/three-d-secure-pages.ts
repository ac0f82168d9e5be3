import { cspSource } from '../domain/header-values.ts';
import type { ShopperStep } from '../domain/three-d-secure.ts';
import { type FileBody, Redirect } from '../http/response.ts';
import { formatMoney } from '../domain/tax.ts';
import type { BrandingRecord } from '../store/settings.ts';
import { escapeHtml } from './answers.ts';
import { shopperPage } from './look.ts';

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
  const { amount, currency, branding } = step.shown;
  const body = [
    `<p class="amount">${escapeHtml(formatMoney(amount, currency))}</p><p>To ${escapeHtml(branding.business_name)}.</p>`,
    `<p>Your bank asks you to confirm this payment.</p><form method="post" action="${escapeHtml(action.url)}">`,
    `${hidden(action.data ?? {})}<button type="submit">Continue to your bank</button></form>`,
  ].join('');
  // the form may post to the bank alone besides this service; no script, so it works anywhere
  return shopperPage({ title: 'Confirm your payment', branding, root: '../', body, formAction: cspSource(action.url) });
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
