/**
 * The dashboard's one way to the API: the project's typed client over the session cookie. The cookie is HttpOnly, so
 * no script here ever holds a credential; a write carries the CSRF token the sign-in gave this tab (kept in memory
 * only), and live mode is the `Livemode: true` header on every request (docs/api.md "Credentials and modes").
 */
import { ApiError, createClient } from '../../client/src/index.ts';
import type { Role } from '../../shared/model/permissions.ts';

export { ApiError };
export type { components } from '../../client/src/index.ts';

export interface Membership {
  merchant_id: string;
  business_name: string;
  role: Role;
}
export interface PendingInvitation {
  id: string;
  business_name: string;
  role: Role;
}
/** What `GET /api/auth/session` answers for the signed-in person. */
export interface Session {
  user_id: string;
  email?: string;
  merchant_id: string | null;
  role: Role | null;
  memberships: Membership[];
  invitations: PendingInvitation[];
  csrf_token: string;
  expires_at?: string;
}

let csrfToken: string | undefined;
let livemode = sessionStorage.getItem('dashboard.livemode') === 'true';
let onSignedOut: () => void = () => {};

export const isLive = () => livemode;
export function setLive(live: boolean): void {
  livemode = live;
  sessionStorage.setItem('dashboard.livemode', String(live));
}
/** Told when the API answers 401 to a signed-in page (the session ended or the member was removed). */
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

const SAFE = new Set(['GET', 'HEAD']);

async function sessionFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.delete('Authorization'); // the cookie is the credential; the client's Bearer header would be refused
  if (!SAFE.has((init.method ?? 'GET').toUpperCase()) && csrfToken) headers.set('X-CSRF-Token', csrfToken);
  if (livemode) headers.set('Livemode', 'true');
  const response = await fetch(input, { ...init, headers, credentials: 'same-origin' });
  if (response.status === 401 && csrfToken && !String(input).includes('/api/auth/')) {
    csrfToken = undefined;
    onSignedOut();
  }
  return response;
}

export const api = createClient({ baseUrl: location.origin, apiKey: '', fetch: sessionFetch, maxAttempts: 2, backoffMs: 300 });

async function auth<T>(method: string, path: string, body?: object): Promise<T> {
  const response = await sessionFetch(new URL(path, location.origin), {
    method,
    headers: body ? { 'Content-Type': 'application/json', Accept: 'application/json' } : { Accept: 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json().catch(() => ({}))) as T & ApiError['body'];
  if (!response.ok) throw new ApiError(response.status, json, response.headers);
  return json;
}

function remember<T extends { csrf_token?: string }>(session: T): T {
  csrfToken = session.csrf_token;
  return session;
}

export const signIn = {
  /** e-mails a 6-digit code; the answer's `request_id` names it in `verify` */
  requestCode: (email: string) => auth<{ request_id: string; expires_in: number }>('POST', '/api/auth/request-otp', { email }),
  verify: (requestId: string, otp: string, merchantId?: string) =>
    auth<Session>('POST', '/api/auth/verify-otp', {
      request_id: requestId,
      otp,
      session: 'cookie',
      ...(merchantId ? { merchant_id: merchantId } : {}),
    }).then(remember),
};

/** The current session, or null when signed out (401). */
export async function loadSession(): Promise<Session | null> {
  try {
    return remember(await auth<Session>('GET', '/api/auth/session'));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export const switchMerchant = (merchantId: string) => auth<Session>('PUT', '/api/auth/session', { merchant_id: merchantId }).then(remember);

/**
 * Joins a team: the accept answers a Bearer session of its own (docs/api.md "Dashboard sessions"), which the page
 * drops at once; the cookie session then switches to the merchant joined.
 */
export async function acceptInvitation(id: string): Promise<Session> {
  const joined = await auth<{ merchant_id: string }>('POST', `/api/team/invitations/${encodeURIComponent(id)}/accept`, {});
  return switchMerchant(joined.merchant_id);
}

export async function signOut(): Promise<void> {
  await auth<unknown>('POST', '/api/auth/sign-out', {}).catch(() => undefined);
  csrfToken = undefined;
}

/** What a failed call says to the member: the API's own message when it sent one. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return `The request failed: ${error.message}`;
  return 'The request failed.';
}
