import type { BrandingRecord } from '../store/settings.ts';
import { FileBody } from '../http/response.ts';
import { escapeHtml, pageAnswer } from './answers.ts';

/**
 * The one look of every shopper page (payment links, invoice pages, 3-D Secure, receipts): a stylesheet served by
 * `GET /hosted/checkout.css?accent=rrggbb` (no inline style: the pages' CSP allows only this service's styles), the
 * business's name on a band of its colour, the amount, and forms whose errors sit next to their fields.
 */

/** The accent when a merchant set none (white text on it reads at 6.7:1). */
export const DEFAULT_ACCENT = '1d4ed8';

/** Relative luminance (WCAG 2) of `rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** Text on the accent: white or near-black, whichever reads better (so any brand colour passes contrast checks). */
export const onAccent = (hex: string): string =>
  1.05 / (luminance(hex) + 0.05) >= (luminance(hex) + 0.05) / (luminance('18181b') + 0.05) ? '#ffffff' : '#18181b';

export function shopperCss(accent: string): string {
  const a = `#${accent}`;
  return [
    `:root{--accent:${a};--on-accent:${onAccent(accent)}}`,
    '*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}',
    'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#18181b;background:#f4f4f5;overflow-wrap:anywhere}',
    '.brand{background:var(--accent);color:var(--on-accent);padding:.9rem 1rem}.brand p{margin:0 auto;max-width:30rem;font-weight:600;font-size:1.1rem}',
    'main{max-width:30rem;margin:1rem auto;padding:1.25rem 1rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}',
    'h1{font-size:1.35rem;line-height:1.3;margin:0 0 .5rem}.amount{font-size:2rem;font-weight:700;margin:.25rem 0 1rem;white-space:nowrap}',
    'table{width:100%;border-collapse:collapse;margin:.5rem 0 1rem}th,td{padding:.35rem 0;text-align:left;vertical-align:top;font-weight:400}',
    'td.money,th.money{text-align:right;white-space:nowrap;padding-left:.75rem}tfoot tr:last-child th,tfoot tr:last-child td{font-weight:700;border-top:1px solid #d4d4d8}',
    '.qty{color:#52525b;font-size:.9rem}caption{text-align:left;font-weight:600}',
    'label{display:block;margin:.85rem 0 .25rem;font-weight:500}input{font:inherit;padding:.55rem .6rem;width:100%;border:1px solid #71717a;border-radius:8px;background:#fff;color:inherit}',
    'input[aria-invalid=true]{border-color:#b91c1c;border-width:2px}.field-error{color:#b91c1c;margin:.25rem 0 0;font-size:.95rem;min-height:0}.field-error:empty{display:none}',
    '.hint{color:#52525b;font-size:.9rem;margin:.25rem 0 0}.row{display:flex;gap:.75rem}.row>div{flex:1;min-width:0}',
    'button,.button{display:block;width:100%;font:inherit;font-weight:600;padding:.75rem 1rem;margin:1.25rem 0 .5rem;border:0;border-radius:8px;background:var(--accent);color:var(--on-accent);cursor:pointer;text-align:center;text-decoration:none}',
    'button:focus-visible,.button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #18181b;outline-offset:2px}',
    '.alert,main>p[role=alert]{border-left:4px solid #b91c1c;background:#fef2f2;color:#7f1d1d;padding:.6rem .8rem;border-radius:4px;margin:.75rem 0}',
    '.notice{border-left:4px solid var(--accent);background:#f4f4f5;padding:.6rem .8rem;border-radius:4px;margin:.75rem 0}',
    'dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}dt{color:#52525b}dd{margin:0;text-align:right}',
    'footer{max-width:30rem;margin:0 auto 2rem;padding:0 1rem;color:#52525b;font-size:.9rem}a{color:#1d4ed8}',
    'fieldset{border:0;padding:0;margin:0}legend{font-weight:600;padding:0;margin-top:.5rem}',
  ].join('');
}

/** `GET /hosted/checkout.css`: the stylesheet for one accent, cacheable (the same text for the same accent). */
export const stylesheetAnswer = (accent: string | undefined): FileBody =>
  new FileBody('text/css; charset=utf-8', Buffer.from(shopperCss(accent ?? DEFAULT_ACCENT)), {
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'Cache-Control': 'public, max-age=300',
  });

/** The accent of a merchant's pages, as the stylesheet's query takes it. */
export const accentOf = (branding: Pick<BrandingRecord, 'brand_color'> | undefined): string =>
  branding?.brand_color?.slice(1).toLowerCase() ?? DEFAULT_ACCENT;

export interface ShopperPage {
  title: string;
  branding: Pick<BrandingRecord, 'business_name' | 'brand_color' | 'support_email'>;
  /** the main content, below the heading */
  body: string;
  /** path from the page to `/hosted/` (`../` for `/hosted/link/plink_…`) */
  root: string;
  /** the page goes on by itself (a bank's page, or a look again in a moment) */
  refresh?: string;
  /** the page's form posts (here only) and its script checks the card typed */
  withCardForm?: boolean;
  /** where a form may post besides this service (a bank's page) */
  formAction?: string;
}

/**
 * A shopper page: viewport, the business band, the heading, the content, the support address; its CSP allows this
 * service's stylesheet (and the card form's script) only.
 */
export function shopperPage(page: ShopperPage): FileBody {
  const { branding } = page;
  const script = page.withCardForm ? `<script src="${page.root}card-form.js" defer></script>` : '';
  const footer = branding.support_email
    ? `<footer><p>Questions? Write to <a href="mailto:${escapeHtml(branding.support_email)}">${escapeHtml(branding.support_email)}</a>.</p></footer>`
    : '';
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    page.refresh ?? '',
    `<title>${escapeHtml(page.title)}</title><link rel="stylesheet" href="${page.root}checkout.css?accent=${accentOf(branding)}">${script}</head>`,
    `<body><header class="brand"><p>${escapeHtml(branding.business_name)}</p></header>`,
    `<main><h1>${escapeHtml(page.title)}</h1>${page.body}</main>${footer}</body></html>`,
  ].join('');
  const csp = [
    "default-src 'none'",
    "style-src 'self'",
    ...(page.withCardForm ? ["script-src 'self'"] : []),
    "base-uri 'none'",
    `form-action 'self'${page.formAction ? ` ${page.formAction}` : ''}`,
    "frame-ancestors 'none'",
  ].join('; ');
  // `same-origin`: the forms' posts carry this page's Origin (no-referrer would send `null`)
  return pageAnswer(html, csp, 'same-origin');
}
