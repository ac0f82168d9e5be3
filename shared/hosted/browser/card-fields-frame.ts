/**
 * `GET /hosted/card-fields-frame.js`: the card fields page's script. It checks the fields as the shopper types
 * (Luhn, brand and its lengths, an expiry in the future, the CVC length of the brand), saves the card with
 * `POST /api/payment_methods` and the publishable key, and posts the payment method, never the number, to the
 * parent at the one origin the page was built for. Bundled for browsers by `shared/hosted/browser-scripts.ts`.
 */
import { brandOf, luhnValid } from '../../model/card-numbers.ts';

type Field = 'number' | 'expiry' | 'cvc';
interface SavedCard {
  id?: string;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
  error?: { type?: string; code?: string; message?: string; param?: string };
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = byId<HTMLFormElement>('card-form');
const key = form.dataset.key!;
const parentOrigin = form.dataset.origin!;
const endpoint = new URL(form.dataset.endpoint!, location.href).href;
const fields: Record<Field, HTMLInputElement> = { number: byId('number'), expiry: byId('expiry'), cvc: byId('cvc') };
const FIELDS = Object.keys(fields) as Field[];
const brandLabel = byId('brand');
let busy = false;

const digits = (value: string) => value.replace(/\D/g, '');

function formatNumber(d: string): string {
  const groups = brandOf(d).groups ?? [4, 4, 4, 4, 3];
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < groups.length && at < d.length; i++) {
    out.push(d.slice(at, at + groups[i]!));
    at += groups[i]!;
  }
  if (at < d.length) out.push(d.slice(at));
  return out.join(' ');
}
function formatExpiry(d: string): string {
  if (d.length === 1 && d > '1') d = '0' + d;
  return d.length > 2 ? d.slice(0, 2) + ' / ' + d.slice(2) : d;
}
/** Rewrites the value in its format, keeping the caret after the same digit. */
function reformat(input: HTMLInputElement, format: (d: string) => string, maxDigits: number): void {
  const caret = input.selectionStart === null ? input.value.length : input.selectionStart;
  const before = digits(input.value.slice(0, caret)).length;
  const formatted = format(digits(input.value).slice(0, maxDigits));
  if (formatted === input.value) return;
  input.value = formatted;
  let at = 0;
  for (let seen = 0; at < formatted.length && seen < before; at++) if (/\d/.test(formatted[at]!)) seen++;
  input.setSelectionRange(at, at);
}

function expiryOf(): { month: number; year: number } | undefined {
  const d = digits(fields.expiry.value);
  if (d.length !== 4 && d.length !== 6) return undefined;
  const year = Number(d.slice(2));
  return { month: Number(d.slice(0, 2)), year: d.length === 4 ? 2000 + year : year };
}

/** Each check answers the message to show, or '' when fine; `final`: also for a value still being typed. */
const checks: Record<Field, (final: boolean) => string> = {
  number(final) {
    const d = digits(fields.number.value);
    const brand = brandOf(d);
    if (!d) return final ? 'Enter the card number.' : '';
    const valid = brand.lengths.includes(d.length);
    const longest = brand.lengths[brand.lengths.length - 1]!;
    // while typing: checked from the brand's usual length on, quiet between the lengths of a longer card
    if (!final && (d.length < (brand.usual ?? 16) || (!valid && d.length < longest))) return '';
    if (!valid) return d.length < brand.lengths[0]! ? 'The card number is incomplete.' : 'The card number is too long.';
    if (!luhnValid(d)) return 'The card number is not valid: check it for a typo.';
    return '';
  },
  expiry(final) {
    const d = digits(fields.expiry.value);
    if (!d) return final ? 'Enter the expiry date as MM / YY.' : '';
    if (!final && d.length < 4)
      return d.length >= 2 && (Number(d.slice(0, 2)) < 1 || Number(d.slice(0, 2)) > 12) ? 'The month must be 01 to 12.' : '';
    const exp = expiryOf();
    if (!exp) return 'Enter the expiry date as MM / YY.';
    if (exp.month < 1 || exp.month > 12) return 'The month must be 01 to 12.';
    const now = new Date();
    const thisMonth = now.getFullYear() * 12 + now.getMonth() + 1;
    if (exp.year * 12 + exp.month < thisMonth) return 'The card has expired.';
    if (exp.year > now.getFullYear() + 20) return 'The expiry year is too far ahead.';
    return '';
  },
  cvc(final) {
    const d = digits(fields.cvc.value);
    const need = brandOf(digits(fields.number.value)).cvc;
    if (!d) return final ? 'Enter the security code.' : '';
    if (!final && d.length < need) return '';
    return d.length === need ? '' : 'The security code has ' + need + ' digits.';
  },
};

function show(name: Field, message: string): void {
  fields[name].setAttribute('aria-invalid', message ? 'true' : 'false');
  const box = byId(name + '-error');
  if (box.textContent !== message) box.textContent = message;
}
function check(name: Field, final: boolean): string {
  const message = checks[name](final);
  show(name, message);
  return message;
}

fields.number.addEventListener('input', () => {
  reformat(fields.number, formatNumber, 19);
  const brand = brandOf(digits(fields.number.value));
  brandLabel.textContent = brand.label;
  fields.cvc.maxLength = brand.cvc;
  check('number', false);
  if (digits(fields.cvc.value)) check('cvc', false);
});
fields.expiry.addEventListener('input', () => {
  reformat(fields.expiry, formatExpiry, 6);
  check('expiry', false);
});
fields.cvc.addEventListener('input', () => {
  reformat(fields.cvc, (d) => d, 4);
  check('cvc', false);
});
for (const name of FIELDS) {
  fields[name].addEventListener('blur', () => {
    if (fields[name].value) check(name, true);
  });
}

const tell = (message: unknown) => window.parent.postMessage(message, parentOrigin);

async function submit(): Promise<void> {
  if (busy) return;
  const invalid = FIELDS.filter((name) => check(name, true));
  if (invalid.length) {
    fields[invalid[0]!].focus();
    tell({ type: 'error', error: { type: 'validation_error', message: 'Check the card details' } });
    return;
  }
  busy = true;
  form.setAttribute('aria-busy', 'true');
  const exp = expiryOf()!;
  const card = { number: digits(fields.number.value), exp_month: exp.month, exp_year: exp.year, cvc: digits(fields.cvc.value) };
  const headers: Record<string, string> = { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' };
  if (window.crypto && crypto.randomUUID) headers['Idempotency-Key'] = crypto.randomUUID();
  try {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'card', card }),
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    const body = (await res.json().catch(() => ({}))) as SavedCard;
    if (res.ok && body.id) {
      const c = body.card;
      tell({
        type: 'payment_method',
        payment_method: { id: body.id, card: { brand: c.brand, last4: c.last4, exp_month: c.exp_month, exp_year: c.exp_year } },
      });
    } else {
      const error = body.error ?? { type: 'api_error', message: 'The card could not be saved' };
      const param = String(error.param ?? '');
      const field = /cvc/.test(param) ? 'cvc' : /exp/.test(param) ? 'expiry' : 'number';
      show(field, res.status === 429 ? 'Too many attempts: try again in a minute.' : (error.message ?? ''));
      tell({ type: 'error', error: { type: error.type, code: error.code, message: error.message } });
    }
  } catch {
    show('number', 'The card could not be sent: check the connection and try again.');
    tell({ type: 'error', error: { type: 'api_error', message: 'The card could not be sent' } });
  } finally {
    busy = false;
    form.removeAttribute('aria-busy');
  }
}

// Enter in any field saves the card, as a form's submit button would (the page has none: the checkout's button submits)
form.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter') return;
  event.preventDefault();
  void submit();
});
window.addEventListener('message', (event: MessageEvent<{ type?: string } | null>) => {
  if (event.source !== window.parent || event.origin !== parentOrigin) return;
  if (event.data && event.data.type === 'submit') void submit();
});
new ResizeObserver(() => tell({ type: 'resize', height: document.documentElement.scrollHeight })).observe(document.body);
tell({ type: 'ready' });
