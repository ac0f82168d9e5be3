/**
 * Braintree's GraphQL API (docs/api.md "Providers and connector accounts"): plain `fetch` POSTs to `/graphql`, Basic auth
 * `public_key:private_key`, `Braintree-Version` pinned, the documents in queries.ts. The answer is data, or a failure
 * already mapped (errors.ts).
 */
import { config } from '../../config.ts';
import type { MappedFailure, Mode } from '../types.ts';
import type { BraintreeCredentials } from './credentials.ts';
import { mapGraphQLErrorClass, mapHttpStatus, mapProcessorResponse, mapTransportError } from './errors.ts';

/** The API version we wrote the documents against: the date of the schema snapshot in infra/local/fakes/contracts. */
export const BRAINTREE_VERSION = '2025-04-29';
export const SANDBOX_ORIGIN = 'https://payments.sandbox.braintree-api.com';
export const LIVE_ORIGIN = 'https://payments.braintree-api.com';

/** The GraphQL endpoint: `BRAINTREE_GATEWAY_URL` (an origin) for fakes and staging, else Braintree's for the mode. */
export function graphqlUrl(mode: Mode): string {
  const origin = config.BRAINTREE_GATEWAY_URL ?? (mode === 'live' ? LIVE_ORIGIN : SANDBOX_ORIGIN);
  return `${origin.replace(/\/+$/, '')}/graphql`;
}

export interface Endpoint {
  url: string;
  authorization: string;
}

export type Answer<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      failure: MappedFailure;
      errorClass?: string;
      /** Braintree's validation code (`extensions.legacyCode`), when it gave one */
      legacyCode?: string;
      /** Braintree's own words (the first error's message), when it answered */
      detail?: string;
      message: string;
    };

interface WireError {
  message?: string;
  extensions?: { errorClass?: string; legacyCode?: string };
}

export const endpointFor = (credentials: BraintreeCredentials, mode: Mode): Endpoint => ({
  url: graphqlUrl(mode),
  authorization: `Basic ${Buffer.from(`${credentials.public_key}:${credentials.private_key}`).toString('base64')}`,
});

/** A processor response code sent as a GraphQL error rather than on a transaction: read like one. */
const isProcessorCode = (code: string | undefined) => !!code && /^[23]\d{3}$/.test(code);

/** One POST of one document. */
export async function post<T>(endpoint: Endpoint, query: string, variables: Record<string, unknown>, signal: AbortSignal): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        authorization: endpoint.authorization,
        'braintree-version': BRAINTREE_VERSION,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ query, variables }),
      signal,
    });
  } catch (error) {
    return { ok: false, failure: mapTransportError(error), message: explain(error) };
  }
  const status = response.status;
  const statusClass = status === 401 ? 'AUTHENTICATION' : status === 403 ? 'AUTHORIZATION' : undefined;
  let body: { data?: Record<string, unknown> | null; errors?: WireError[] } | undefined;
  try {
    body = (await response.json()) as typeof body;
  } catch (error) {
    // No readable body: a status that says "not carried out" is believed; a 200 lost on the way may hide anything.
    if (status === 200) return { ok: false, failure: mapTransportError(error), message: `HTTP 200, body lost: ${explain(error)}` };
    return {
      ok: false,
      failure: statusClass ? mapGraphQLErrorClass(statusClass) : mapHttpStatus(status),
      errorClass: statusClass,
      message: `HTTP ${status}`,
    };
  }
  const errors = body?.errors ?? [];
  const results = body?.data ? Object.values(body.data) : [];
  // A result, or a partial one whose every root field answered (the data is the truth then).
  if (status === 200 && body?.data && (errors.length === 0 || results.every((value) => value !== null))) return { ok: true, data: body.data as T };
  const first = errors[0];
  const errorClass = first?.extensions?.errorClass ?? statusClass;
  const legacyCode = first?.extensions?.legacyCode;
  const message = `HTTP ${status}${errorClass ? ` ${errorClass}` : ''}${legacyCode ? ` ${legacyCode}` : ''}: ${first?.message ?? 'no result'}`;
  const said = { ...(legacyCode ? { legacyCode } : {}), ...(first?.message ? { detail: first.message } : {}), message };
  if (status === 429 || status >= 500) return { ok: false, failure: mapHttpStatus(status), errorClass, ...said };
  if (isProcessorCode(legacyCode)) return { ok: false, failure: mapProcessorResponse(legacyCode), errorClass, ...said };
  if (errorClass) return { ok: false, failure: mapGraphQLErrorClass(errorClass), errorClass, ...said };
  return { ok: false, failure: status === 200 ? mapGraphQLErrorClass(undefined) : mapHttpStatus(status), ...said };
}

const explain = (error: unknown): string => {
  const e = error as { name?: string; message?: string; cause?: { code?: string } };
  return [e.name, e.cause?.code, e.message].filter(Boolean).join(': ');
};
