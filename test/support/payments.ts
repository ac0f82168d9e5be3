import { handler as capture } from '../../functions/payments/capture.ts';
import { handler as create } from '../../functions/payments/create.ts';
import { handler as get } from '../../functions/payments/get.ts';
import { handler as list } from '../../functions/payments/list.ts';
import { handler as refund } from '../../functions/payments/refund.ts';
import { handler as voidPayment } from '../../functions/payments/void.ts';
import { handler as simulate } from '../../functions/routing/simulate.ts';
import { luhnValid } from '../../shared/model/cards.ts';
import { apiEvent, invokeHttp } from './lambda.ts';
import { bearer } from './merchant.ts';

/** Stripe's test cards (the sandbox's table) as tests use them. */
export const CARDS = {
  approved: '4242424242424242',
  mastercard: '5555555555554444',
  genericDecline: '4000000000000002',
  insufficientFunds: '4000000000009995',
  lostCard: '4000000000009987',
  stolenCard: '4000000000009979',
  expiredCard: '4000000000000069',
  incorrectCvc: '4000000000000127',
  processingError: '4000000000000119',
  fraudulent: '4100000000000019',
} as const;

export const CVC = '737';

/**
 * A fresh Luhn-valid Visa number the sandbox approves. Tests use their own cards so that card velocity (counted
 * per card across merchants, as fraud checks must) never couples one test to another.
 */
export function freshCard(): string {
  const body = `4${Array.from({ length: 14 }, () => Math.floor(Math.random() * 10)).join('')}`;
  for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
  throw new Error('unreachable');
}

export const paymentBody = (overrides: Record<string, unknown> = {}, card: string = freshCard()) => ({
  amount: 2500,
  currency: 'usd',
  payment_method: { type: 'card', card: { number: card, exp_month: 12, exp_year: 2034, cvc: CVC } },
  customer: { email: 'jane@example.com', name: 'Jane Doe' },
  ...overrides,
});

const json = (key: string, headers: Record<string, string> = {}) => ({ ...bearer(key), ...headers });

export const payments = {
  create: (key: string, body: unknown, headers?: Record<string, string>, sourceIp?: string) =>
    invokeHttp(create, apiEvent({ method: 'POST', path: '/api/payments/create', headers: json(key, headers), body, sourceIp })),
  simulate: (key: string, body: unknown) =>
    invokeHttp(simulate, apiEvent({ method: 'POST', path: '/api/routing/simulate', headers: json(key), body })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/payments/${id}`, headers: json(key) })),
  list: (key: string, query: Record<string, string> = {}) =>
    invokeHttp(list, apiEvent({ method: 'GET', path: '/api/payments/list', headers: json(key), query })),
  capture: (key: string, id: string, body?: unknown, headers?: Record<string, string>) =>
    invokeHttp(capture, apiEvent({ method: 'POST', path: `/api/payments/${id}/capture`, headers: json(key, headers), body })),
  void: (key: string, id: string, headers?: Record<string, string>) =>
    invokeHttp(voidPayment, apiEvent({ method: 'POST', path: `/api/payments/${id}/void`, headers: json(key, headers) })),
  refund: (key: string, id: string, body?: unknown, headers?: Record<string, string>) =>
    invokeHttp(refund, apiEvent({ method: 'POST', path: `/api/payments/${id}/refund`, headers: json(key, headers), body })),
};
