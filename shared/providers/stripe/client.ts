import Stripe from 'stripe';
import { config } from '../../config.ts';
import { failedOperation } from '../failures.ts';
import type { MappedFailure, OperationResult } from '../types.ts';
import { classify, refusalOf, UNKNOWN } from './errors.ts';

/** The longest any one Stripe request may take; callers with a deadline stop waiting sooner (their AbortSignal). */
export const REQUEST_TIMEOUT_MS = 10_000;

/** `STRIPE_API_BASE_URL` (an origin such as `http://127.0.0.1:12111`) as the SDK's host/port/protocol, or Stripe's own. */
export function apiOrigin(value = config.STRIPE_API_BASE_URL): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!value) return {};
  const url = new URL(value);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol };
}

const MAX_CLIENTS = 100;
const clients = new Map<string, Stripe>();

/**
 * One SDK client per secret key (and API origin), made once per process: the SDK keeps its connections alive.
 * `maxNetworkRetries: 0`: our core retries, under the same idempotency key. The SDK still retries a connection
 * reset once on its own (same key, so it never doubles an effect).
 */
export function clientFor(secretKey: string): Stripe {
  const origin = apiOrigin();
  const cacheKey = `${origin.protocol ?? 'https'}://${origin.host ?? ''}:${origin.port ?? ''} ${secretKey}`;
  let client = clients.get(cacheKey);
  if (!client) {
    if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value!);
    client = new Stripe(secretKey, {
      apiVersion: Stripe.API_VERSION,
      maxNetworkRetries: 0,
      timeout: REQUEST_TIMEOUT_MS,
      telemetry: false,
      ...origin,
    });
    clients.set(cacheKey, client);
  }
  return client;
}

export type Sent<T> = { ok: true; value: T } | { ok: false; failure: MappedFailure; error: unknown };

/**
 * Runs one Stripe call and classes its failure. When `signal` aborts first the answer is `unknown` at once (the
 * request may still reach Stripe: it carries our idempotency key, so a look-up or reversal finds it).
 */
export async function send<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<Sent<T>> {
  if (signal?.aborted) return { ok: false, failure: UNKNOWN, error: signal.reason };
  const answer = call().then(
    (value): Sent<T> => ({ ok: true, value }),
    (error: unknown): Sent<T> => ({ ok: false, failure: classify(error), error }),
  );
  if (!signal) return answer;
  let onAbort: () => void = () => {};
  const aborted = new Promise<Sent<T>>((resolve) => {
    onAbort = () => resolve({ ok: false, failure: UNKNOWN, error: signal.reason });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([answer, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** A failed action: Stripe's refusal in its words, else the error map's class. */
export function operationFailure(sent: Extract<Sent<unknown>, { ok: false }>): Extract<OperationResult, { ok: false }> {
  const refusal = refusalOf(sent.error);
  return refusal === undefined ? failedOperation(sent.failure) : { ok: false, reason: 'refused', message: refusal };
}
