import type { PayPage } from '../domain/payment-links.ts';
import { formatMoney } from '../domain/tax.ts';
import type { FileBody } from '../http/response.ts';
import { CARD_BRANDS } from '../model/card-numbers.ts';
import { escapeHtml, pageAnswer, styleHash } from './answers.ts';

const CSS = [
  'body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;color:#18181b}',
  'label{display:block;margin:.75rem 0 .25rem}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}',
  'button{font:inherit;font-weight:600;padding:.6rem 1rem;margin:.75rem 0;width:100%}',
  'fieldset{border:1px solid #d4d4d8;border-radius:8px;margin:1rem 0}[role=alert]{color:#991b1b}',
].join('');

/** The saved card's brand as a shopper reads it (shared/model/card-numbers.ts), else as stored. */
const brandLabel = (brand: string) => CARD_BRANDS.find((b) => b.name === brand)?.label ?? brand;

/**
 * The customer's page for paying one invoice: the saved card in one click, or a new card; plain forms, no script,
 * labelled fields with the browser's own card autofill. `action`: where the forms post (this page's signed URL).
 * Waiting for the bank, it goes on there by itself (a refresh, no script) and offers the link.
 */
export function payPageAnswer(page: PayPage, action: string): FileBody {
  const { invoice } = page;
  const amount = formatMoney(invoice.total, invoice.currency);
  const title = invoice.status === 'paid' ? `Invoice ${invoice.number} is paid` : `Pay invoice ${invoice.number}`;
  const summary = `<p>${escapeHtml(amount)} to ${escapeHtml(invoice.merchant_email ?? 'the merchant')}, due ${escapeHtml(invoice.due_date)}.</p>`;
  const refresh = page.bankUrl
    ? `<meta http-equiv="refresh" content="0;url=${escapeHtml(page.bankUrl)}">`
    : page.processing
      ? '<meta http-equiv="refresh" content="2">'
      : '';
  const html = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${refresh}`,
    `<title>${escapeHtml(title)}</title><style>${CSS}</style></head><body><main><h1>${escapeHtml(title)}</h1>${summary}`,
    body(page, amount, action),
    '</main></body></html>',
  ].join('');
  // `same-origin`: the forms' posts carry this page's Origin (no-referrer would send `null`), no other site sees the link
  const csp = `default-src 'none'; style-src ${styleHash(CSS)}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
  return pageAnswer(html, csp, 'same-origin');
}

function body(page: PayPage, amount: string, action: string): string {
  if (page.invoice.status === 'paid') return `<p role="status">Paid on ${escapeHtml(page.invoice.paid_at?.slice(0, 10) ?? '')}. Thank you.</p>`;
  if (page.bankUrl) {
    return `<p role="status">Your bank asks you to confirm this payment.</p><p><a href="${escapeHtml(page.bankUrl)}">Continue to your bank</a></p>`;
  }
  if (page.processing) return '<p role="status">Your payment is being made. This page updates by itself.</p>';
  if (page.blocked) {
    const merchant = escapeHtml(page.invoice.merchant_email ?? 'the merchant');
    return `<p role="alert">Too many cards were declined for this invoice, so it cannot be paid here for now. Please contact ${merchant} to pay it.</p>`;
  }
  const problem = page.problem ? `<p role="alert">${escapeHtml(page.problem)}</p>` : '';
  const formId = `<input type="hidden" name="form_id" value="${escapeHtml(page.formId)}">`;
  const saved = page.savedCard
    ? `<form method="post" action="${escapeHtml(action)}">${formId}<input type="hidden" name="pay_with" value="saved"><button type="submit">Pay ${escapeHtml(amount)} with ${escapeHtml(brandLabel(page.savedCard.brand))} •••• ${escapeHtml(page.savedCard.last4)}</button></form>`
    : '';
  const field = (name: string, label: string, attributes: string) =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" required ${attributes}>`;
  const card = [
    `<form method="post" action="${escapeHtml(action)}">${formId}<input type="hidden" name="pay_with" value="card"><fieldset><legend>${page.savedCard ? 'Or pay with another card' : 'Pay with a card'}</legend>`,
    field('number', 'Card number', 'autocomplete="cc-number" inputmode="numeric" pattern="[0-9 ]{13,23}"'),
    field(
      'exp',
      'Expiry (MM / YY)',
      'autocomplete="cc-exp" inputmode="numeric" placeholder="MM / YY" pattern="\\s*(0[1-9]|1[0-2])\\s*/\\s*[0-9]{2}\\s*"',
    ),
    field('cvc', 'Security code (CVC)', 'autocomplete="cc-csc" inputmode="numeric" pattern="[0-9]{3,4}"'),
    `<button type="submit">Pay ${escapeHtml(amount)}</button></fieldset></form>`,
  ].join('');
  return problem + saved + card;
}
