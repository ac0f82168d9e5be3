import type { FieldName, LinkPage } from '../domain/payment-link-checkout.ts';
import { formatMoney } from '../domain/tax.ts';
import type { FileBody } from '../http/response.ts';
import { CARD_BRANDS } from '../model/card-numbers.ts';
import { escapeHtml } from './answers.ts';
import { shopperPage } from './look.ts';

/** The brand as a shopper reads it (shared/model/card-numbers.ts), else as stored. */
export const brandLabel = (brand: string) => CARD_BRANDS.find((b) => b.name === brand)?.label ?? brand;

/** Line items, tax and total: a table a screen reader reads row by row. */
export function orderTable(order: {
  line_items: readonly { name: string; amount: number; quantity: number }[];
  currency: string;
  subtotal: number;
  tax: number;
  tax_rate: number;
  total: number;
}): string {
  const money = (amount: number) => escapeHtml(formatMoney(amount, order.currency));
  const rows = order.line_items
    .map(
      (item) =>
        `<tr><td>${escapeHtml(item.name)}<br><span class="qty">${item.quantity} × ${money(item.amount)}</span></td><td class="money">${money(item.amount * item.quantity)}</td></tr>`,
    )
    .join('');
  const tax = order.tax > 0 ? `<tr><th scope="row">Tax (${order.tax_rate} %)</th><td class="money">${money(order.tax)}</td></tr>` : '';
  return [
    '<table><caption>Your order</caption><thead><tr><th scope="col">Item</th><th scope="col" class="money">Amount</th></tr></thead>',
    `<tbody>${rows}</tbody><tfoot><tr><th scope="row">Subtotal</th><td class="money">${money(order.subtotal)}</td></tr>${tax}`,
    `<tr><th scope="row">Total</th><td class="money">${money(order.total)}</td></tr></tfoot></table>`,
  ].join('');
}

/** A card form (number, expiry, CVC, optional e-mail): each error next to its field, what was typed kept but the card. */
export function cardForm(options: {
  action: string;
  formId: string;
  button: string;
  errors?: Partial<Record<FieldName, string>>;
  kept?: { exp?: string; email?: string };
  email?: boolean;
  legend?: string;
  /** more fields the post carries */
  hidden?: Record<string, string>;
}): string {
  const errors = options.errors ?? {};
  const field = (name: FieldName, label: string, attributes: string, value = '') => {
    const error = errors[name];
    const invalid = error ? ' aria-invalid="true"' : '';
    const valueAttribute = value ? ` value="${escapeHtml(value)}"` : '';
    return `<div><label for="${name}">${label}</label><input id="${name}" name="${name}" ${attributes}${valueAttribute}${invalid} aria-describedby="${name}-error"><p class="field-error" id="${name}-error" role="alert">${error ? escapeHtml(error) : ''}</p></div>`;
  };
  return [
    `<form method="post" action="${escapeHtml(options.action)}" data-card-form novalidate><input type="hidden" name="form_id" value="${escapeHtml(options.formId)}">`,
    ...Object.entries(options.hidden ?? {}).map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`),
    `<fieldset><legend>${escapeHtml(options.legend ?? 'Pay with a card')}</legend>`,
    field('number', 'Card number', 'autocomplete="cc-number" inputmode="numeric" required'),
    '<div class="row">',
    field('exp', 'Expiry (MM / YY)', 'autocomplete="cc-exp" inputmode="numeric" placeholder="MM / YY" required', options.kept?.exp),
    field('cvc', 'Security code (CVC)', 'autocomplete="cc-csc" inputmode="numeric" required'),
    '</div>',
    options.email === false ? '' : field('email', 'E-mail for the receipt (optional)', 'type="email" autocomplete="email"', options.kept?.email),
    `</fieldset><button type="submit">${escapeHtml(options.button)}</button></form>`,
  ].join('');
}

const CLOSED = {
  inactive: ['This payment link is closed', 'is no longer taking payments'],
  sold_out: ['This payment link is sold out', 'has taken all the payments it was set up for'],
  blocked: ['This payment link is paused', 'cannot take a card here for now, after too many declined cards'],
} as const;

/** The page of a payment link: the checkout, why it takes nothing, the way to the bank, or the receipt. */
export function linkPageAnswer(page: LinkPage, action: string): FileBody {
  const { link, branding } = page;
  const business = escapeHtml(branding.business_name);
  const total = escapeHtml(formatMoney(link.total, link.currency));
  const contact = branding.support_email ? ` Please contact ${escapeHtml(branding.support_email)}.` : ` Please contact ${business}.`;
  const common = { branding, root: '../' };
  if (page.receipt) {
    const r = page.receipt;
    const message = link.after_completion?.type === 'hosted_confirmation' ? `<p class="notice">${escapeHtml(link.after_completion.message)}</p>` : '';
    const body = [
      `<p role="status">Thank you — your payment to ${business} is complete.</p>${message}`,
      `<p class="amount">${escapeHtml(formatMoney(r.amount, r.currency))}</p>${orderTable(link)}`,
      `<dl><dt>Paid with</dt><dd>${escapeHtml(brandLabel(r.brand))} •••• ${escapeHtml(r.last4)}</dd><dt>Date</dt><dd>${escapeHtml(r.paid_at.slice(0, 10))}</dd>`,
      `<dt>Receipt</dt><dd>${escapeHtml(r.payment_id)}</dd>${r.email ? `<dt>Sent to</dt><dd>${escapeHtml(r.email)}</dd>` : ''}</dl>`,
    ].join('');
    return shopperPage({ ...common, title: 'Payment received', body });
  }
  if (page.bankUrl) {
    const body = `<p class="amount">${total}</p><p role="status">Your bank asks you to confirm this payment.</p><p><a href="${escapeHtml(page.bankUrl)}">Continue to your bank</a></p>`;
    return shopperPage({
      ...common,
      title: `Pay ${branding.business_name}`,
      body,
      refresh: `<meta http-equiv="refresh" content="0;url=${escapeHtml(page.bankUrl)}">`,
    });
  }
  if (page.processing) {
    const body = `<p class="amount">${total}</p><p role="status">Your payment is being made. This page updates by itself.</p>`;
    return shopperPage({ ...common, title: `Pay ${branding.business_name}`, body, refresh: '<meta http-equiv="refresh" content="2">' });
  }
  if (page.closed || !page.formId) {
    const [title, why] = CLOSED[page.closed ?? 'inactive'];
    const body = `<p role="alert" class="alert">This link ${why}, so nothing can be paid here.${contact}</p>${orderTable(link)}`;
    return shopperPage({ ...common, title, body });
  }
  const problem = page.problem ? `<p role="alert" class="alert">${escapeHtml(page.problem)}</p>` : '';
  const body = [
    `<p class="amount">${total}</p>${orderTable(link)}${problem}`,
    cardForm({
      action,
      formId: page.formId,
      button: `Pay ${formatMoney(link.total, link.currency)}`,
      errors: page.fieldErrors ?? {},
      kept: page.kept ?? {},
    }),
  ].join('');
  return shopperPage({ ...common, title: `Pay ${branding.business_name}`, body, withCardForm: true });
}
