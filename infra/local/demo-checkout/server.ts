/**
 * The demo merchant's shop, on an origin of its own (`npm start` serves it on DEMO_PORT, default 3001): a checkout
 * page that mounts the hosted card fields with the merchant's publishable key, and the merchant's "server" route,
 * `POST /pay`, which charges the `pm_` the page hands it with the secret key. A card that asks for 3-D Secure sends
 * the shopper through the payment's next action; they come back to `GET /done`, where the shop's server reads the
 * payment. Each visit of the page is an order of its own: the server charges an order once (a second `POST /pay` for
 * it answers 409), and a declined order may be paid with another card. It shows a merchant's side of the integration,
 * and the browser tests assert what it sees (never a card number).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outcomeHtml, outcomeOf, type PaymentRead } from './words.ts';

export interface DemoCheckoutOptions {
  /** 0 = any free port */
  port: number;
  /** the API's base URL, e.g. `http://localhost:3000` */
  apiUrl: string;
  publishableKey: string;
  secretKey: string;
  /** the payments' `routing` (default the merchant's: smart) */
  routing?: string;
  /** sees every request the shop's server receives and makes, with the answers (for the browser tests) */
  record?: (exchange: Exchange) => void;
}

export interface Exchange {
  direction: 'received' | 'sent';
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
  answer: string;
}

export interface DemoCheckout {
  /** `http://localhost:<port>`: the origin to allow in the demo merchant's checkout_origins */
  url: string;
  close(): Promise<void>;
}

const file = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
const DEMO_AMOUNT = 2500;

interface PaymentView extends PaymentRead {
  next_action?: { redirect_to_url: { url: string } } | null;
  error?: { code?: string; decline_code?: string; payment_id?: string };
}

const ORDER_ID = /^ord_[0-9a-f-]{36}$/;

export async function startDemoCheckout(options: DemoCheckoutOptions): Promise<DemoCheckout> {
  const api = new URL(options.apiUrl).origin;
  const page = file('shop.html')
    .replaceAll('{{API}}', options.apiUrl.replace(/\/$/, ''))
    .replaceAll('{{KEY}}', encodeURIComponent(options.publishableKey));
  const statics: Record<string, [string, string]> = {
    '/shop.js': ['text/javascript; charset=utf-8', file('shop.js')],
    '/shop.css': ['text/css; charset=utf-8', file('shop.css')],
  };
  // The merchant's own policy: its scripts and the API's card fields script, the fields' frame, nothing else.
  const csp = `default-src 'self'; script-src 'self' ${api}; frame-src ${api}; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;

  let shopUrl = '';
  /** Orders the page was served for, and those being paid or paid (the payment's id once known). */
  const issued = new Set<string>();
  const taken = new Map<string, string>();
  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      console.error('[demo checkout]', err);
      if (!res.headersSent) answer(res, 500, 'application/json', JSON.stringify({ message: 'The shop failed' }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await text(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const reply = (status: number, type: string, content: string) => {
      options.record?.({
        direction: 'received',
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        status,
        answer: content,
      });
      answer(res, status, type, content, csp);
    };
    if (req.method === 'GET' && path === '/') {
      const order = `ord_${randomUUID()}`;
      issued.add(order);
      return reply(200, 'text/html; charset=utf-8', page.replace('{{ORDER}}', order));
    }
    const asset = req.method === 'GET' ? statics[path] : undefined;
    if (asset) return reply(200, asset[0], asset[1]);
    if (req.method === 'GET' && path === '/done') {
      const paymentId = new URL(req.url ?? '/', 'http://shop.local').searchParams.get('payment_id') ?? '';
      const read = /^pay_[0-9a-z]{26}$/.test(paymentId) ? await callApi('GET', `/api/payments/${paymentId}`) : undefined;
      const outcome = read?.status === 200 ? outcomeOf(read.payment) : undefined;
      return reply(outcome ? 200 : 404, 'text/html; charset=utf-8', donePage(outcome ?? { paid: false, message: 'We found no such payment.' }));
    }
    if (req.method !== 'POST' || path !== '/pay') return reply(404, 'application/json', JSON.stringify({ message: 'Not found' }));
    const { payment_method: paymentMethod, order } = JSON.parse(body || '{}') as { payment_method?: unknown; order?: unknown };
    if (typeof paymentMethod !== 'string') return reply(400, 'application/json', JSON.stringify({ message: 'payment_method is required' }));
    if (typeof order !== 'string' || !ORDER_ID.test(order) || !issued.has(order))
      return reply(404, 'application/json', JSON.stringify({ message: 'We have no such order: reload the page.' }));
    // Taken before the charge, so two presses at once charge once; given back when the card is declined.
    if (taken.has(order)) return reply(409, 'application/json', JSON.stringify({ message: 'This order is already paid, or being paid.' }));
    taken.set(order, '');
    const charge = await chargeCard(paymentMethod, `${shopUrl}/done`).catch((err: unknown) => {
      taken.delete(order);
      throw err;
    });
    if (charge.paymentId && charge.status !== 402) taken.set(order, charge.paymentId);
    else taken.delete(order);
    reply(charge.status, 'application/json', JSON.stringify(charge.view));
  }

  /**
   * The merchant's server side: a payment of the `pm_` with the secret key (the card number is never here). When the
   * issuer asks the shopper to authenticate, the page sends them to the payment's next action.
   */
  async function chargeCard(
    paymentMethod: string,
    returnUrl: string,
  ): Promise<{ status: number; paymentId?: string; view: Record<string, unknown> }> {
    const request = { amount: DEMO_AMOUNT, currency: 'USD', payment_method: paymentMethod, description: 'Demo T-shirt', return_url: returnUrl };
    const { status, payment } = await callApi('POST', '/api/payments/create', {
      ...request,
      ...(options.routing ? { routing: options.routing } : {}),
    });
    if (status === 402 && payment.error?.code === 'card_declined') {
      const failed = { id: payment.error.payment_id, status: 'failed', decline_code: payment.error.decline_code ?? null };
      return { status, view: outcomeOf(failed) };
    }
    if (status !== 200) return { status: 502, view: { message: 'We could not take the payment just now: please try again.' } };
    const paymentId = payment.id;
    if (payment.status === 'requires_action')
      return { status, paymentId, view: { id: paymentId, status: payment.status, redirect_url: payment.next_action?.redirect_to_url.url } };
    const outcome = outcomeOf(payment);
    return { status: outcome.paid ? 200 : 402, paymentId, view: outcome };
  }

  async function callApi(method: 'GET' | 'POST', path: string, request?: Record<string, unknown>): Promise<{ status: number; payment: PaymentView }> {
    const url = `${options.apiUrl}${path}`;
    const headers: Record<string, string> = { Authorization: `Bearer ${options.secretKey}` };
    if (request) Object.assign(headers, { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() });
    const body = request ? JSON.stringify(request) : '';
    const res = await fetch(url, { method, headers, ...(request ? { body } : {}) });
    const answered = await res.text();
    options.record?.({ direction: 'sent', method, url, headers, body, status: res.status, answer: answered });
    return { status: res.status, payment: JSON.parse(answered) as PaymentView };
  }

  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', fail);
      ready();
    });
  });
  shopUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    url: shopUrl,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

const donePage = (outcome: Parameters<typeof outcomeHtml>[0]) => file('done.html').replace('{{RESULT}}', outcomeHtml(outcome));

function answer(res: ServerResponse, status: number, type: string, content: string, csp?: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  if (csp) res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Content-Length', Buffer.byteLength(content));
  res.end(content);
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
