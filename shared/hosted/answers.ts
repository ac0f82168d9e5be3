import { createHash } from 'node:crypto';
import { FileBody } from '../http/response.ts';

/** What every hosted answer says besides its CSP: no sniffing, no referrer, no caching of a page built per key. */
const COMMON = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

/** A `style-src` source for one inline stylesheet: its hash, so no other inline style runs. */
export const styleHash = (css: string): string => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A script file: static, cacheable for a few minutes, and (as every hosted answer) with a CSP. */
export const scriptAnswer = (source: string): FileBody =>
  new FileBody('text/javascript; charset=utf-8', Buffer.from(source), {
    ...COMMON,
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'Cache-Control': 'public, max-age=300',
  });

/**
 * A page: `csp` is its whole policy; never stored by caches (its frame-ancestors follow the merchant's settings).
 * `referrer`: a page whose forms post to this service sends its Origin with them (`same-origin`).
 */
export const pageAnswer = (html: string, csp: string, referrer: 'no-referrer' | 'same-origin' = 'no-referrer'): FileBody =>
  new FileBody('text/html; charset=utf-8', Buffer.from(html), {
    ...COMMON,
    'Referrer-Policy': referrer,
    'Content-Security-Policy': csp,
    'Cache-Control': 'no-store',
  });

const ERROR_CSS = 'body{font:16px/1.4 system-ui,sans-serif;margin:1rem;color:#7a1010}';

/**
 * A hosted page's error (shared/http/error-mapper.ts), for the card fields and the shopper's pages alike: the message
 * in a page without script, which any page may frame, so that a developer sees why the card fields did not load.
 */
export function errorPage(message: string): { html: string; headers: Record<string, string> } {
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Payment page unavailable</title><style>${ERROR_CSS}</style><p role="alert">${escapeHtml(message)}</p></html>`;
  const csp = `default-src 'none'; style-src ${styleHash(ERROR_CSS)}; base-uri 'none'; form-action 'none'`;
  return { html, headers: { ...COMMON, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp, 'Cache-Control': 'no-store' } };
}
