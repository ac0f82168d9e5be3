/**
 * The dashboard's security headers, the same from `npm start` (infra/local/dashboard.ts) and from CloudFront
 * (infra/constructs/dashboard-site.ts): only this origin's files (no inline script, no framing by any page).
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

/** Hashed asset names change with their content: a browser or CDN may keep one for a year. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
