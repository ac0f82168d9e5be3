/** Checkout origins: the pages allowed to frame the hosted card fields (DECISIONS "Hosted card fields"). */
export const MAX_CHECKOUT_ORIGINS = 20;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** scheme://host[:port] with at most a trailing slash: no path, query, fragment or credentials */
const ORIGIN_SHAPE = /^https?:\/\/[^/?#@\s*]+\/?$/i;
/** a host name (punycode once parsed) or a bracketed IPv6 address */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/;

function parsed(value: string): URL | undefined {
  if (!ORIGIN_SHAPE.test(value)) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** https with any host, http only on a loopback host (a developer's machine). */
export function isCheckoutOrigin(value: string): boolean {
  const url = parsed(value);
  if (!url || !HOST.test(url.hostname)) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
}

/** The origin as a browser sends it: lowercase, default port dropped, no trailing slash. */
export const checkoutOrigin = (value: string): string => new URL(value).origin;
