import type { PayPage } from '../domain/payment-links.ts';
import { formatMoney } from '../domain/tax.ts';
import type { FileBody } from '../http/response.ts';
import { escapeHtml } from './answers.ts';
import { brandLabel, cardForm, orderTable } from './link-page.ts';
import { shopperPage } from './look.ts';

/**
 * The customer's page for paying one invoice, in the shopper pages' look (look.ts): the business, the invoice's lines,
 * tax and total, a link to its PDF, then the saved card in one click or a new card (checked before it is sent, each
 * error next to its field). `action`: where the forms post (this page's signed URL, relative). Waiting for the bank,
 * it goes on there by itself (a refresh, no script) and offers the link.
 */
export function payPageAnswer(page: PayPage, action: string, pdfUrl: string | null = null): FileBody {
  const { invoice, branding } = page;
  const amount = formatMoney(invoice.total, invoice.currency);
  const title = invoice.status === 'paid' ? `Invoice ${invoice.number} is paid` : `Pay invoice ${invoice.number}`;
  const pdf = pdfUrl ? `<p><a href="${escapeHtml(pdfUrl)}">Download the invoice (PDF)</a></p>` : '';
  const summary = [
    `<p class="amount">${escapeHtml(amount)}</p><p>To ${escapeHtml(branding.business_name)}, due ${escapeHtml(invoice.due_date)}.</p>`,
    invoice.items ? orderTable({ ...invoice, line_items: invoice.items }) : '',
    pdf,
  ].join('');
  const refresh = page.bankUrl
    ? `<meta http-equiv="refresh" content="0;url=${escapeHtml(page.bankUrl)}">`
    : page.processing
      ? '<meta http-equiv="refresh" content="2">'
      : undefined;
  const withForm = invoice.status !== 'paid' && !page.bankUrl && !page.processing && !page.blocked;
  return shopperPage({
    title,
    branding,
    root: '../',
    body: summary + body(page, amount, action),
    ...(refresh ? { refresh } : {}),
    withCardForm: withForm,
  });
}

function body(page: PayPage, amount: string, action: string): string {
  if (page.invoice.status === 'paid') return `<p role="status">Paid on ${escapeHtml(page.invoice.paid_at?.slice(0, 10) ?? '')}. Thank you.</p>`;
  if (page.bankUrl) {
    return `<p role="status">Your bank asks you to confirm this payment.</p><p><a href="${escapeHtml(page.bankUrl)}">Continue to your bank</a></p>`;
  }
  if (page.processing) return '<p role="status">Your payment is being made. This page updates by itself.</p>';
  if (page.blocked) {
    const merchant = escapeHtml(page.branding.support_email ?? page.invoice.merchant_email ?? page.branding.business_name);
    return `<p role="alert">Too many cards were declined for this invoice, so it cannot be paid here for now. Please contact ${merchant} to pay it.</p>`;
  }
  const problem = page.problem ? `<p role="alert">${escapeHtml(page.problem)}</p>` : '';
  const formId = `<input type="hidden" name="form_id" value="${escapeHtml(page.formId)}">`;
  const saved = page.savedCard
    ? `<form method="post" action="${escapeHtml(action)}">${formId}<input type="hidden" name="pay_with" value="saved"><button type="submit">Pay ${escapeHtml(amount)} with ${escapeHtml(brandLabel(page.savedCard.brand))} •••• ${escapeHtml(page.savedCard.last4)}</button></form>`
    : '';
  const card = cardForm({
    action,
    formId: page.formId,
    button: `Pay ${amount}`,
    errors: page.fieldErrors ?? {},
    kept: page.kept ?? {},
    email: false,
    legend: page.savedCard ? 'Or pay with another card' : 'Pay with a card',
    hidden: { pay_with: 'card' },
  });
  return problem + saved + card;
}
