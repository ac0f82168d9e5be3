import { checkoutOf } from '../domain/checkout.ts';
import { cspSource } from '../domain/header-values.ts';
import type { FileBody } from '../http/response.ts';
import { escapeHtml, pageAnswer, styleHash } from './answers.ts';

const CSS = `
*{box-sizing:border-box}
body{margin:0;padding:2px;font:16px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:transparent}
.field{margin:0 0 .5rem}
.row{display:flex;gap:.75rem}
.row .field{flex:1}
label{display:block;font-size:.875rem;font-weight:600;margin-bottom:.25rem}
.wrap{position:relative}
input{width:100%;font:inherit;padding:.5rem .625rem;border:1px solid #8a8a8a;border-radius:6px;background:#fff;color:inherit}
input:focus{outline:3px solid #2563eb;outline-offset:1px;border-color:#2563eb}
input[aria-invalid=true]{border-color:#b91c1c}
.brand{position:absolute;right:.625rem;top:50%;transform:translateY(-50%);font-size:.75rem;color:#555}
.error{min-height:1.25em;margin:.2rem 0 0;font-size:.8125rem;color:#b91c1c}
`;

/** The CSP of the card fields page: only its own script and style, posts to its own origin, framed by `origins` alone. */
const cspFor = (origins: readonly string[]): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${styleHash(CSS)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${origins.length ? origins.map(cspSource).join(' ') : "'none'"}`,
  ].join('; ');

const field = (id: string, label: string, attributes: string, extra = '') => `<div class="field">
<label for="${id}">${label}</label>
<div class="wrap"><input id="${id}" name="${id}" ${attributes} inputmode="numeric" spellcheck="false" aria-invalid="false" aria-describedby="${id}-error" required>${extra}</div>
<p class="error" id="${id}-error" aria-live="polite"></p>
</div>`;

/** `GET /hosted/card-fields?key=pk_…&origin=…`: number, expiry and CVC, for the page at `origin` (docs/checkout.md). */
export async function cardFieldsPage(key: string, origin: string): Promise<FileBody> {
  const { origins, livemode } = await checkoutOf(key, origin);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Card details${livemode ? '' : ' (test mode)'}</title>
<style>${CSS}</style>
</head>
<body>
<form id="card-form" novalidate data-key="${escapeHtml(key)}" data-origin="${escapeHtml(origin)}" data-endpoint="../api/payment_methods">
${field('number', 'Card number', 'autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234"', '<span class="brand" id="brand" aria-live="polite"></span>')}
<div class="row">
${field('expiry', 'Expiry (MM / YY)', 'autocomplete="cc-exp" maxlength="9" placeholder="MM / YY"')}
${field('cvc', 'Security code (CVC)', 'autocomplete="cc-csc" maxlength="4" placeholder="123"')}
</div>
</form>
<script src="card-fields-frame.js"></script>
</body>
</html>
`;
  return pageAnswer(html, cspFor(origins));
}
