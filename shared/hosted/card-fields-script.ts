/**
 * `GET /hosted/card-fields.js`: the script a merchant's checkout page includes (docs/checkout.md). It frames the
 * card fields page and talks to it by postMessage with exact origins on both sides; the page never sees a card
 * number, only the payment method the frame created. Plain ES2020 for browsers, served as written.
 */
export const CARD_FIELDS_SCRIPT = `(function () {
  'use strict';
  var script = document.currentScript;
  var base = script ? script.src : '';
  var scriptKey = base ? new URL(base).searchParams.get('key') : null;

  function CardFieldsError(error) {
    var e = new Error(error && error.message ? error.message : 'The card could not be saved');
    e.name = 'CardFieldsError';
    e.type = error && error.type;
    e.code = error && error.code;
    return e;
  }

  /**
   * mount(target, {key, onPaymentMethod}) frames the fields into target (a selector or an element) and answers
   * {ready, submit}: ready resolves once the fields are shown; submit() checks them, saves the card and resolves
   * {payment_method: {id, card: {brand, last4, exp_month, exp_year}}}, or rejects a CardFieldsError.
   * Enter in the fields submits too: the result goes to a pending submit(), else to onPaymentMethod.
   */
  function mount(target, options) {
    options = options || {};
    var key = options.key || scriptKey;
    if (!key || !/^pk_(live|test)_/.test(key)) throw new Error('CardFields.mount needs a publishable key (pk_test_… or pk_live_…)');
    var host = typeof target === 'string' ? document.querySelector(target) : target;
    if (!host) throw new Error('CardFields.mount: no element matches ' + target);
    var src = new URL('card-fields', base || location.href);
    src.search = '';
    src.searchParams.set('key', key);
    src.searchParams.set('origin', location.origin);
    var frameOrigin = src.origin;
    var iframe = document.createElement('iframe');
    iframe.src = src.href;
    iframe.title = 'Card details';
    iframe.style.border = '0';
    iframe.style.width = '100%';
    iframe.style.height = '9rem';
    host.appendChild(iframe);

    var pending = [];
    var markReady;
    var ready = new Promise(function (resolve) { markReady = resolve; });
    window.addEventListener('message', function (event) {
      if (event.source !== iframe.contentWindow || event.origin !== frameOrigin) return;
      var data = event.data || {};
      if (data.type === 'ready') markReady();
      else if (data.type === 'resize' && data.height > 0) iframe.style.height = Math.ceil(data.height) + 'px';
      else if (data.type === 'payment_method' || data.type === 'error') {
        var waiting = pending.shift();
        if (data.type === 'payment_method') {
          if (waiting) waiting.resolve({ payment_method: data.payment_method });
          else if (options.onPaymentMethod) options.onPaymentMethod(data.payment_method);
        } else if (waiting) waiting.reject(CardFieldsError(data.error));
      }
    });

    return {
      ready: ready,
      submit: function () {
        return ready.then(function () {
          return new Promise(function (resolve, reject) {
            pending.push({ resolve: resolve, reject: reject });
            iframe.contentWindow.postMessage({ type: 'submit' }, frameOrigin);
          });
        });
      },
    };
  }

  window.CardFields = { mount: mount };
})();
`;
