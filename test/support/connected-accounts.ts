import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as createConnector } from '../../functions/connectors/create.ts';
import { handler as createCustomer } from '../../functions/customers/create.ts';
import type { Owner } from '../../shared/model/targets.ts';
import { FAKE_CREDENTIALS, type ProviderFakes } from '../../infra/local/fakes/index.ts';
import { STRIPE_FAKE_LIVE_KEY } from '../../infra/local/fakes/stripe/server.ts';
import { apiEvent, invokeHttp, type Json } from './lambda.ts';
import { bearer, newMerchant, sessionOf } from './merchant.ts';

/**
 * A merchant's own provider accounts, here the provider fakes, connected in test or live mode; and what a fake
 * received for one authorization attempt (found by our attempt id, the idempotency key the connector sent).
 */
export type Mode = 'test' | 'live';
export type Provider = 'stripe' | 'adyen' | 'braintree';
export const PROVIDERS: readonly Provider[] = ['stripe', 'adyen', 'braintree'];

/** The credentials each fake accepts for an account of `mode` (a live Adyen account names its live URL prefix). */
export function credentialsFor(provider: Provider, mode: Mode): Record<string, unknown> {
  if (mode === 'test') return FAKE_CREDENTIALS[provider];
  if (provider === 'stripe') return { secret_key: STRIPE_FAKE_LIVE_KEY };
  if (provider === 'adyen') return { ...FAKE_CREDENTIALS.adyen, live_url_prefix: '1797a841fbb37ca7-FakeLive' };
  return FAKE_CREDENTIALS.braintree;
}

/** A fresh merchant acting in `mode`: its secret key there, and one customer of that mode. */
export async function merchantIn(mode: Mode) {
  const { apiKey, merchantId, customerId } = await newMerchant();
  if (mode === 'test') return { merchantId, secretKey: apiKey, customerId, owner: { merchant_id: merchantId, livemode: false } as Owner };
  const secretKey = await liveKeyOf(merchantId);
  const customer = await invokeHttp(
    createCustomer,
    apiEvent({ method: 'POST', path: '/api/customers', headers: bearer(secretKey), body: { email: 'jane@example.com', name: 'Jane Doe' } }),
  );
  if (customer.status !== 200) throw new Error(`live customer not created: ${customer.rawBody}`);
  return { merchantId, secretKey, customerId: customer.body.id as string, owner: { merchant_id: merchantId, livemode: true } as Owner };
}

/** A live secret key of the merchant, made signed in (a test key cannot make one). */
export async function liveKeyOf(merchantId: string): Promise<string> {
  const session = await sessionOf(merchantId);
  const key = await invokeHttp(
    createKey,
    apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(session), body: { name: 'live', mode: 'live' } }),
  );
  if (key.status !== 200) throw new Error(`live key not created: ${key.rawBody}`);
  return key.body.key;
}

/** Connects the provider's fake as an account of the key's mode; its connector id. */
export async function connect(secretKey: string, provider: Provider, mode: Mode, label = `${provider} ${mode}`): Promise<string> {
  const res = await invokeHttp(
    createConnector,
    apiEvent({
      method: 'POST',
      path: '/api/connectors',
      headers: bearer(secretKey),
      body: { provider, credentials: credentialsFor(provider, mode), label },
    }),
  );
  if (res.status !== 200 || res.body.mode !== mode) throw new Error(`${provider} not connected in ${mode} mode: ${res.rawBody}`);
  return res.body.id;
}

/** One authorization attempt as a fake received it, normalized: the card fields and the provider's own fields. */
export interface Received {
  /** the card number's last four digits when a number was sent (the Braintree fake keeps only those) */
  numberLast4?: string;
  cvc: boolean;
  /** the authorization request's body, in the provider's wire names (Braintree: the mutation's `input`) */
  body: Json;
  /** Braintree only: the mutation that authorized */
  mutation?: string;
}

export function receivedBy(fakes: ProviderFakes, provider: Provider, attemptId: string): Received {
  if (provider === 'stripe') {
    const request = fakes.stripe.requests.find((r) => r.idempotencyKey === attemptId && r.method === 'POST' && r.path === '/v1/payment_intents');
    if (!request) throw new Error(`Stripe received no PaymentIntent under ${attemptId}`);
    const body = request.body as Json;
    const card = body.payment_method_data?.card;
    return { numberLast4: card?.number?.slice(-4), cvc: card?.cvc !== undefined, body };
  }
  if (provider === 'adyen') {
    const request = fakes.adyen.requests.find((r) => r.idempotencyKey === attemptId && r.operation === 'authorize');
    if (!request) throw new Error(`Adyen received no /payments under ${attemptId}`);
    const body = request.body as Json;
    return { numberLast4: body.paymentMethod?.number?.slice(-4), cvc: body.paymentMethod?.cvc !== undefined, body };
  }
  const inputs = fakes.braintree.requests
    .map((r) => ({ field: (r as { field?: string }).field, input: (r.body as Json).variables?.input as Json | undefined }))
    .filter((r) => r.input?.clientMutationId === attemptId);
  const tokenized = inputs.find((r) => r.field === 'tokenizeCreditCard')?.input?.creditCard;
  const authorized = inputs.find((r) => r.field === 'authorizePaymentMethod' || r.field === 'authorizeCreditCard');
  if (!authorized) throw new Error(`Braintree received no authorization under ${attemptId}`);
  return { numberLast4: tokenized?.number?.slice(-4), cvc: tokenized?.cvv !== undefined, body: authorized.input!, mutation: authorized.field };
}
