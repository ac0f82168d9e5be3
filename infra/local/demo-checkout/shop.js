/* global document, fetch, window, CardFields */
// The merchant's checkout script: the card fields save the card and hand back a pm_ id; the merchant's server charges it
// (and, when the card's bank asks for 3-D Secure, answers where to send the shopper).
const form = document.getElementById('checkout');
const result = document.getElementById('result');
const pay = document.getElementById('pay');
const fields = CardFields.mount('#card', { onPaymentMethod: charge });

async function charge(paymentMethod) {
  result.textContent = `Charging ${paymentMethod.card.brand} •••• ${paymentMethod.card.last4}…`;
  const res = await fetch('/pay', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ payment_method: paymentMethod.id }),
  });
  const body = await res.json();
  // The card's bank asks the shopper to authenticate: off to the payment's next action, back at /done.
  if (body.redirect_url) return window.location.assign(body.redirect_url);
  result.textContent = res.ok ? `Paid: ${body.id} is ${body.status}.` : `Not paid: ${body.message}`;
  result.dataset.outcome = res.ok ? 'paid' : 'failed';
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
    pay.disabled = false;
  }
});
