/**
 * What the demo shop tells its shopper, in words: a receipt once paid, the reason in plain language when the card is
 * declined (never a status or a decline code). Used by the shop's server for its answers and its `/done` page.
 */

/** The part of a payment the shop reads back from the API. */
export interface PaymentRead {
  id?: string;
  status?: string;
  amount?: number;
  currency?: string;
  decline_code?: string | null;
  payment_method?: { card?: { brand?: string; last4?: string } };
}

/** What the shop's page shows: a receipt, or why the order is not paid. */
export type Outcome = { paid: true; receipt: { payment_id: string; amount: string; card: string } } | { paid: false; message: string };

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
};

const REASONS: Record<string, string> = {
  insufficient_funds: 'there are not enough funds on it',
  lost_card: 'it was reported lost',
  stolen_card: 'it was reported stolen',
  expired_card: 'it has expired',
  incorrect_cvc: 'the security code is not right',
  authentication_required: 'your bank could not confirm that it was you',
};

export const money = (amount: number, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount / 100);

/** The shopper's words for a payment that is not paid. */
export function notPaid(payment: PaymentRead): string {
  if (payment.status === 'voided' || payment.status === 'canceled') return 'This payment was cancelled, so your order is not paid.';
  if (payment.status !== 'failed') return 'Your order is not paid yet.';
  const reason = REASONS[payment.decline_code ?? ''];
  return `Your card was declined${reason ? ` because ${reason}` : ''}. Nothing was charged: try another card, or ask your bank.`;
}

export function outcomeOf(payment: PaymentRead): Outcome {
  if (payment.status !== 'succeeded' && payment.status !== 'authorized') return { paid: false, message: notPaid(payment) };
  const card = payment.payment_method?.card ?? {};
  const brand = BRANDS[card.brand ?? ''] ?? 'Card';
  return {
    paid: true,
    receipt: {
      payment_id: payment.id ?? '',
      amount: money(payment.amount ?? 0, payment.currency ?? 'USD'),
      card: `${brand} •••• ${card.last4 ?? ''}`,
    },
  };
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The outcome as HTML (the `/done` page's; shop.js builds the same from the JSON answer). */
export function outcomeHtml(outcome: Outcome): string {
  if (!outcome.paid) return `<p id="result" role="status" data-outcome="failed">${escapeHtml(outcome.message)}</p>`;
  const { amount, card, payment_id } = outcome.receipt;
  return `<section id="result" role="status" data-outcome="paid" aria-labelledby="thanks">
        <h2 id="thanks">Thank you — your order is paid</h2>
        <dl class="receipt">
          <dt>Amount</dt><dd id="receipt-amount">${escapeHtml(amount)}</dd>
          <dt>Card</dt><dd id="receipt-card">${escapeHtml(card)}</dd>
        </dl>
        <p class="payment-id"><small>Payment <span id="receipt-payment">${escapeHtml(payment_id)}</span></small></p>
      </section>`;
}
