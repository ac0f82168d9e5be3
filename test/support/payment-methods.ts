import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as attach } from '../../functions/payment-methods/attach.ts';
import { handler as create } from '../../functions/payment-methods/create.ts';
import { handler as detach } from '../../functions/payment-methods/detach.ts';
import { handler as get } from '../../functions/payment-methods/get.ts';
import { handler as list } from '../../functions/payment-methods/list.ts';
import { apiEvent, invokeHttp } from './lambda.ts';
import { bearer } from './merchant.ts';

export const cardBody = (number: string, overrides: Record<string, unknown> = {}) => ({
  type: 'card',
  card: { number, exp_month: 12, exp_year: 2034, cvc: '123' },
  ...overrides,
});

const with_ = (key: string, headers: Record<string, string> = {}) => ({ ...bearer(key), ...headers });

export const paymentMethods = {
  create: (key: string, body: unknown, headers?: Record<string, string>, sourceIp?: string) =>
    invokeHttp(create, apiEvent({ method: 'POST', path: '/api/payment_methods', headers: with_(key, headers), body, sourceIp })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/payment_methods/${id}`, headers: with_(key) })),
  list: (key: string, query: Record<string, string>) =>
    invokeHttp(list, apiEvent({ method: 'GET', path: '/api/payment_methods', headers: with_(key), query })),
  attach: (key: string, id: string, customerId: string) =>
    invokeHttp(
      attach,
      apiEvent({ method: 'POST', path: `/api/payment_methods/${id}/attach`, headers: with_(key), body: { customer_id: customerId } }),
    ),
  detach: (key: string, id: string) =>
    invokeHttp(detach, apiEvent({ method: 'POST', path: `/api/payment_methods/${id}/detach`, headers: with_(key) })),
};

/** A publishable key of the merchant's (test mode unless a live secret key asks). */
export async function publishableKeyOf(secretKey: string): Promise<string> {
  const res = await invokeHttp(
    createKey,
    apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(secretKey), body: { name: 'Checkout page', type: 'publishable' } }),
  );
  if (res.status !== 200) throw new Error(`publishable key not created: ${res.rawBody}`);
  return res.body.key as string;
}

/**
 * A card saved as a checkout page saves it (the publishable key, which names no customer), then attached to the
 * customer by the merchant's server (its secret key): the attach's answer.
 */
export async function savedFromBrowser(secretKey: string, body: unknown, customerId: string) {
  const saved = await paymentMethods.create(await publishableKeyOf(secretKey), body);
  if (saved.status !== 200) throw new Error(`card not saved: ${saved.rawBody}`);
  return paymentMethods.attach(secretKey, saved.body.id as string, customerId);
}
