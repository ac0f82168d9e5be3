/**
 * `GET /hosted/card-fields-frame.js`: the card fields page's script. It checks the fields as the shopper types
 * (Luhn, brand and its lengths, an expiry in the future, the CVC length of the brand), saves the card with
 * `POST /api/payment_methods` and the publishable key, and posts the payment method, never the number, to the
 * parent at the one origin the page was built for. Plain ES2020 for browsers, served as written.
 */
export const CARD_FIELDS_FRAME_SCRIPT = `(function () {
  'use strict';
  var form = document.getElementById('card-form');
  var key = form.dataset.key;
  var parentOrigin = form.dataset.origin;
  var endpoint = new URL(form.dataset.endpoint, location.href).href;
  var fields = { number: byId('number'), expiry: byId('expiry'), cvc: byId('cvc') };
  var brandLabel = byId('brand');
  var busy = false;

  var BRANDS = [
    { name: 'amex', label: 'American Express', re: /^3[47]/, lengths: [15], usual: 15, cvc: 4, groups: [4, 6, 5] },
    { name: 'diners', label: 'Diners Club', re: /^3(0[0-5]|[68])/, lengths: [14, 16, 19], cvc: 3 },
    { name: 'jcb', label: 'JCB', re: /^35(2[89]|[3-8])/, lengths: [16, 17, 18, 19], cvc: 3 },
    { name: 'visa', label: 'Visa', re: /^4/, lengths: [13, 16, 19], cvc: 3 },
    { name: 'mastercard', label: 'Mastercard', re: /^(5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/, lengths: [16], cvc: 3 },
    { name: 'discover', label: 'Discover', re: /^(6011|64[4-9]|65)/, lengths: [16, 17, 18, 19], cvc: 3 },
    { name: 'unionpay', label: 'UnionPay', re: /^62/, lengths: [16, 17, 18, 19], cvc: 3 },
  ];
  var UNKNOWN = { name: 'unknown', label: '', lengths: [13, 14, 15, 16, 17, 18, 19], cvc: 3 };

  function byId(id) { return document.getElementById(id); }
  function digits(value) { return value.replace(/\\D/g, ''); }
  function brandOf(number) {
    for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i].re.test(number)) return BRANDS[i];
    return UNKNOWN;
  }
  function luhn(number) {
    var sum = 0;
    for (var i = 0; i < number.length; i++) {
      var d = number.charCodeAt(number.length - 1 - i) - 48;
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }

  function formatNumber(d) {
    var groups = brandOf(d).groups || [4, 4, 4, 4, 3];
    var out = [], at = 0;
    for (var i = 0; i < groups.length && at < d.length; i++) { out.push(d.slice(at, at + groups[i])); at += groups[i]; }
    if (at < d.length) out.push(d.slice(at));
    return out.join(' ');
  }
  function formatExpiry(d) {
    if (d.length === 1 && d > '1') d = '0' + d;
    return d.length > 2 ? d.slice(0, 2) + ' / ' + d.slice(2) : d;
  }
  /** Rewrites the value in its format, keeping the caret after the same digit. */
  function reformat(input, format, maxDigits) {
    var caret = input.selectionStart === null ? input.value.length : input.selectionStart;
    var before = digits(input.value.slice(0, caret)).length;
    var formatted = format(digits(input.value).slice(0, maxDigits));
    if (formatted === input.value) return;
    input.value = formatted;
    var at = 0;
    for (var seen = 0; at < formatted.length && seen < before; at++) if (/\\d/.test(formatted[at])) seen++;
    input.setSelectionRange(at, at);
  }

  function expiryOf() {
    var d = digits(fields.expiry.value);
    if (d.length !== 4 && d.length !== 6) return undefined;
    var year = Number(d.slice(2));
    return { month: Number(d.slice(0, 2)), year: d.length === 4 ? 2000 + year : year };
  }

  /** Each check answers the message to show, or '' when fine; \`final\`: also for a value still being typed. */
  var checks = {
    number: function (final) {
      var d = digits(fields.number.value);
      var brand = brandOf(d);
      if (!d) return final ? 'Enter the card number.' : '';
      var valid = brand.lengths.indexOf(d.length) !== -1;
      // while typing: checked from the brand's usual length on, quiet between the lengths of a longer card
      if (!final && (d.length < (brand.usual || 16) || (!valid && d.length < brand.lengths[brand.lengths.length - 1]))) return '';
      if (!valid) return d.length < brand.lengths[0] ? 'The card number is incomplete.' : 'The card number is too long.';
      if (!luhn(d)) return 'The card number is not valid: check it for a typo.';
      return '';
    },
    expiry: function (final) {
      var d = digits(fields.expiry.value);
      if (!d) return final ? 'Enter the expiry date as MM / YY.' : '';
      if (!final && d.length < 4) return d.length >= 2 && (Number(d.slice(0, 2)) < 1 || Number(d.slice(0, 2)) > 12) ? 'The month must be 01 to 12.' : '';
      var exp = expiryOf();
      if (!exp) return 'Enter the expiry date as MM / YY.';
      if (exp.month < 1 || exp.month > 12) return 'The month must be 01 to 12.';
      var now = new Date();
      var thisMonth = now.getFullYear() * 12 + now.getMonth() + 1;
      if (exp.year * 12 + exp.month < thisMonth) return 'The card has expired.';
      if (exp.year > now.getFullYear() + 20) return 'The expiry year is too far ahead.';
      return '';
    },
    cvc: function (final) {
      var d = digits(fields.cvc.value);
      var need = brandOf(digits(fields.number.value)).cvc;
      if (!d) return final ? 'Enter the security code.' : '';
      if (!final && d.length < need) return '';
      return d.length === need ? '' : 'The security code has ' + need + ' digits.';
    },
  };

  function show(name, message) {
    var input = fields[name];
    input.setAttribute('aria-invalid', message ? 'true' : 'false');
    var box = byId(name + '-error');
    if (box.textContent !== message) box.textContent = message;
  }
  function check(name, final) {
    var message = checks[name](final);
    show(name, message);
    return message;
  }

  fields.number.addEventListener('input', function () {
    reformat(fields.number, formatNumber, 19);
    var brand = brandOf(digits(fields.number.value));
    brandLabel.textContent = brand.label;
    fields.cvc.maxLength = brand.cvc;
    check('number', false);
    if (digits(fields.cvc.value)) check('cvc', false);
  });
  fields.expiry.addEventListener('input', function () {
    reformat(fields.expiry, formatExpiry, 6);
    check('expiry', false);
  });
  fields.cvc.addEventListener('input', function () {
    reformat(fields.cvc, function (d) { return d; }, 4);
    check('cvc', false);
  });
  Object.keys(fields).forEach(function (name) {
    fields[name].addEventListener('blur', function () {
      if (fields[name].value) check(name, true);
    });
  });

  function tell(message) { window.parent.postMessage(message, parentOrigin); }

  async function submit() {
    if (busy) return;
    var invalid = Object.keys(fields).filter(function (name) { return check(name, true); });
    if (invalid.length) {
      fields[invalid[0]].focus();
      tell({ type: 'error', error: { type: 'validation_error', message: 'Check the card details' } });
      return;
    }
    busy = true;
    form.setAttribute('aria-busy', 'true');
    var exp = expiryOf();
    var card = { number: digits(fields.number.value), exp_month: exp.month, exp_year: exp.year, cvc: digits(fields.cvc.value) };
    var headers = { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' };
    if (window.crypto && crypto.randomUUID) headers['Idempotency-Key'] = crypto.randomUUID();
    try {
      var res = await fetch(endpoint, {
        method: 'POST',
        headers: headers,
        body: JSON.stringify({ type: 'card', card: card }),
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
      var body = await res.json().catch(function () { return {}; });
      if (res.ok && body.id) {
        var c = body.card;
        tell({ type: 'payment_method', payment_method: { id: body.id, card: { brand: c.brand, last4: c.last4, exp_month: c.exp_month, exp_year: c.exp_year } } });
      } else {
        var error = body.error || { type: 'api_error', message: 'The card could not be saved' };
        var param = String(error.param || '');
        var field = /cvc/.test(param) ? 'cvc' : /exp/.test(param) ? 'expiry' : 'number';
        show(field, res.status === 429 ? 'Too many attempts: try again in a minute.' : error.message);
        tell({ type: 'error', error: { type: error.type, code: error.code, message: error.message } });
      }
    } catch (e) {
      show('number', 'The card could not be sent: check the connection and try again.');
      tell({ type: 'error', error: { type: 'api_error', message: 'The card could not be sent' } });
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  }

  // Enter in any field saves the card, as a form's submit button would (the page has none: the checkout's button submits)
  form.addEventListener('keydown', function (event) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    submit();
  });
  window.addEventListener('message', function (event) {
    if (event.source !== window.parent || event.origin !== parentOrigin) return;
    if (event.data && event.data.type === 'submit') submit();
  });
  new ResizeObserver(function () { tell({ type: 'resize', height: document.documentElement.scrollHeight }); }).observe(document.body);
  tell({ type: 'ready' });
})();
`;
