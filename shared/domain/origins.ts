import { plainWebUrl } from './header-values.ts';

/** Checkout origins: the pages allowed to frame the hosted card fields (docs/api.md "Hosted card fields"). */
export const MAX_CHECKOUT_ORIGINS = 20;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** scheme://host[:port] with at most a trailing slash: no path, query, fragment or credentials */
const ORIGIN_SHAPE = /^https?:\/\/[^/?#@\s*]+\/?$/i;

/** A loopback host: the developer's own machine. */
export const isLoopback = (url: URL): boolean => LOOPBACK.has(url.hostname);

/** https with any host, http only on a loopback host (a developer's machine). */
export function isCheckoutOrigin(value: string): boolean {
  const url = ORIGIN_SHAPE.test(value) ? plainWebUrl(value) : undefined;
  if (!url) return false;
  return url.protocol === 'https:' || isLoopback(url);
}

/** The origin as a browser sends it: lowercase, default port dropped, no trailing slash. */
export const checkoutOrigin = (value: string): string => new URL(value).origin;
