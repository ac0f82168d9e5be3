// A checkout server's calls through the client package; `npm run typecheck` compiles this file (strict).
import { ApiError, createClient } from '@payment-orchestration/client';

const api = createClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.API_KEY ?? '' });

type Card = { number: string; exp_month: number; exp_year: number; cvc: string };

/** Charges an order with the card its shopper typed (in test mode, e.g. 4242 4242 4242 4242). */
export async function checkout(orderId: string, card: Card): Promise<void> {
  try {
    const payment = await api.POST('/api/payments/create', {
      body: { amount: 2500, currency: 'usd', payment_method: { type: 'card', card } },
      idempotencyKey: `order-${orderId}`, // one per order: a retry, even after a restart, never charges twice
    });
    await api.POST('/api/payments/{id}/capture', { params: { id: payment.id }, body: {} });
    await api.POST('/api/payments/{id}/refund', { params: { id: payment.id }, body: { amount: 1000 } });
    for await (const p of api.listAll('/api/payments/list', { query: { status: 'refunded', limit: 100 } })) console.log(p.id, p.status);
  } catch (e) {
    // anything but a 200, once the retries are spent; `error` is absent when the answer was not the API's JSON
    if (e instanceof ApiError) console.error(e.status, e.code, e.body.error?.message);
    else throw e;
  }
}
