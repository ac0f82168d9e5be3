/**
 * Header values built from a URL someone else chose (a merchant's `return_url` or checkout origin, a provider's page):
 * the one place they are made, so that no `;`, `,`, quote, space, CR or LF in one can add a CSP directive or a header.
 * A URL parser lets `;`, `,` and quotes through in a host name (`https://a;script-src.example`), so hosts are checked
 * against a strict shape rather than trusted for having parsed.
 */

/** a host name (ASCII, punycode once parsed) or a bracketed IPv6 address */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/;

/** The URL, parsed, when it is http(s) with a host of the strict shape and no credentials; else undefined. */
export function plainWebUrl(value: string): URL | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (!HOST.test(url.hostname) || url.username || url.password) return undefined;
  return url;
}

/** Thrown for a value that should never have been stored or accepted: the answer is a 500, nothing is sent. */
class UnsafeHeaderValue extends Error {
  constructor(what: string) {
    super(`refused to build a ${what} header value from an unsafe URL`);
  }
}

/** Visible ASCII, less what could end a CSP source or a header parameter, or quote or escape one. */
const UNSAFE_IN_LOCATION = /[^\x21-\x7e]|["'<>\\^`{|}]/g;

/**
 * A `Location` value: the URL as its parser serialises it (no CR, LF, tab or space survive that), with any quote,
 * backslash or character outside visible ASCII left percent-encoded.
 */
export function locationHeader(value: string): string {
  const url = plainWebUrl(value);
  if (!url) throw new UnsafeHeaderValue('Location');
  return url.href.replace(UNSAFE_IN_LOCATION, (c) => encodeURIComponent(c).replace(/'/g, '%27'));
}

/** A CSP source expression (`form-action`, `frame-ancestors`, …) for the origin of `value`: `scheme://host[:port]`. */
export function cspSource(value: string): string {
  const url = plainWebUrl(value);
  if (!url) throw new UnsafeHeaderValue('Content-Security-Policy');
  return url.origin;
}
