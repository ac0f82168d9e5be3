/**
 * `GET /hosted/card-fields.js`: the script a merchant's checkout page includes (docs/checkout.md). It frames the
 * card fields page and talks to it by postMessage with exact origins on both sides; the page never sees a card
 * number, only the payment method the frame created. Bundled for browsers by `shared/hosted/browser-scripts.ts`.
 */

interface PaymentMethod {
  id: string;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
}
interface FrameError {
  type?: string;
  code?: string;
  message?: string;
}
interface MountOptions {
  key?: string;
  onPaymentMethod?: (paymentMethod: PaymentMethod) => void;
}
type FrameMessage =
  | { type: 'ready' }
  | { type: 'resize'; height: number }
  | { type: 'payment_method'; payment_method: PaymentMethod }
  | { type: 'error'; error?: FrameError };

const script = document.currentScript as HTMLScriptElement | null;
const base = script ? script.src : '';
const scriptKey = base ? new URL(base).searchParams.get('key') : null;

function cardFieldsError(error: FrameError | undefined): Error & FrameError {
  const e: Error & FrameError = new Error(error && error.message ? error.message : 'The card could not be saved');
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
function mount(target: string | Element, options?: MountOptions | null) {
  options = options || {};
  const key = options.key || scriptKey;
  if (!key || !/^pk_(live|test)_/.test(key)) throw new Error('CardFields.mount needs a publishable key (pk_test_… or pk_live_…)');
  const host = typeof target === 'string' ? document.querySelector(target) : target;
  if (!host) throw new Error('CardFields.mount: no element matches ' + String(target));
  const src = new URL('card-fields', base || location.href);
  src.search = '';
  src.searchParams.set('key', key);
  src.searchParams.set('origin', location.origin);
  const frameOrigin = src.origin;
  const iframe = document.createElement('iframe');
  iframe.src = src.href;
  iframe.title = 'Card details';
  iframe.style.border = '0';
  iframe.style.width = '100%';
  iframe.style.height = '9rem';
  host.appendChild(iframe);

  const pending: Array<{ resolve: (result: { payment_method: PaymentMethod }) => void; reject: (error: Error) => void }> = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  window.addEventListener('message', (event: MessageEvent<FrameMessage | null>) => {
    const data = event.data;
    if (event.source !== iframe.contentWindow || event.origin !== frameOrigin || !data) return;
    if (data.type === 'ready') markReady();
    else if (data.type === 'resize' && data.height > 0) iframe.style.height = Math.ceil(data.height) + 'px';
    else if (data.type === 'payment_method' || data.type === 'error') {
      const waiting = pending.shift();
      if (data.type === 'payment_method') {
        if (waiting) waiting.resolve({ payment_method: data.payment_method });
        else if (options.onPaymentMethod) options.onPaymentMethod(data.payment_method);
      } else if (waiting) waiting.reject(cardFieldsError(data.error));
    }
  });

  return {
    ready,
    submit: () =>
      ready.then(
        () =>
          new Promise<{ payment_method: PaymentMethod }>((resolve, reject) => {
            pending.push({ resolve, reject });
            iframe.contentWindow!.postMessage({ type: 'submit' }, frameOrigin);
          }),
      ),
  };
}

declare global {
  interface Window {
    CardFields: { mount: typeof mount };
  }
}
window.CardFields = { mount: mount };
