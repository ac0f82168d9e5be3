import { Unauthorized } from '../model/errors.ts';

/**
 * The dashboard's session cookie (docs/api.md "Dashboard sessions"): HttpOnly (no page script reads it),
 * SameSite=Strict (no other site's page sends it), on `/api` only, Secure wherever the API is served over HTTPS.
 */
export const SESSION_COOKIE = 'po_session';
const MAX_AGE_SECONDS = 12 * 60 * 60;

const attributes = (baseUrl: string, maxAge: number) =>
  `Path=/api; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${baseUrl.startsWith('https:') ? '; Secure' : ''}`;

/** `Set-Cookie` of a new session (its token lives as long as the session: 12 h). */
export const sessionCookie = (token: string, baseUrl: string): string => `${SESSION_COOKIE}=${token}; ${attributes(baseUrl, MAX_AGE_SECONDS)}`;

/** `Set-Cookie` that makes the browser drop the session cookie (sign-out). */
export const clearedSessionCookie = (baseUrl: string): string => `${SESSION_COOKIE}=; ${attributes(baseUrl, 0)}`;

/**
 * The session cookie's value in a `Cookie` header, if there is one. Two of them (one planted by a sibling subdomain
 * beside ours) are refused as ambiguous: 401 rather than a guess at which is ours.
 */
export function sessionFromCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const values = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${SESSION_COOKIE}=`))
    .map((pair) => pair.slice(SESSION_COOKIE.length + 1));
  if (values.length > 1) throw new Unauthorized('invalid_api_key', 'the request carries two session cookies');
  return values[0] || undefined;
}
