/* global document, fetch, window, CardFields */
// The merchant's checkout script: the card fields save the card and hand back a pm_ id; the merchant's server charges it
// for this page's order (and, when the card's bank asks for 3-D Secure, answers where to send the shopper).
const form = document.getElementById('checkout');
const result = document.getElementById('result');
const pay = document.getElementById('pay');
const fields = CardFields.mount('#card', { onPaymentMethod: charge });
let paid = false;

async function charge(paymentMethod) {
  result.textContent = `Charging the card ending ${paymentMethod.card.last4}…`;
  const res = await fetch('/pay', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ payment_method: paymentMethod.id, order: form.dataset.order }),
  });
  const body = await res.json();
  // The card's bank asks the shopper to authenticate: off to the payment's next action, back at /done.
  if (body.redirect_url) return window.location.assign(body.redirect_url);
  if (body.paid) return showReceipt(body.receipt);
  result.textContent = body.message;
  result.dataset.outcome = 'failed';
}

/** The order is paid: the form goes (it cannot pay twice), a receipt in its place. */
function showReceipt(receipt) {
  paid = true;
  form.remove();
  const element = (tag, text, attributes = {}) => Object.assign(document.createElement(tag), { textContent: text }, attributes);
  const list = element('dl', '', { className: 'receipt' });
  list.append(element('dt', 'Amount'), element('dd', receipt.amount, { id: 'receipt-amount' }));
  list.append(element('dt', 'Card'), element('dd', receipt.card, { id: 'receipt-card' }));
  const id = element('small', 'Payment ');
  id.append(element('span', receipt.payment_id, { id: 'receipt-payment' }));
  const small = element('p', '', { className: 'payment-id' });
  small.append(id);
  const heading = element('h2', 'Thank you — your order is paid', { id: 'thanks', tabIndex: -1 });
  result.replaceChildren(heading, list, small);
  result.dataset.outcome = 'paid';
  heading.focus();
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  pay.disabled = true;
  try {
    const { payment_method } = await fields.submit();
    await charge(payment_method);
  } catch (error) {
    result.textContent = error.message;
  } finally {
    if (!paid) pay.disabled = false;
  }
});
