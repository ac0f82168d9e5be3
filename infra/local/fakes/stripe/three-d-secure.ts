import type { ServerResponse } from 'node:http';

/** A 3-D Secure challenge the fake hosts for one PaymentIntent (`source`: the secret in its page's address). */
export interface Challenge {
  intentId: string;
  source: string;
  returnUrl: string;
  clientSecret: string;
  /** the confirmation's Idempotency-Key, for the hold made when the shopper passes */
  idempotencyKey?: string;
  /** the card charged is a saved PaymentMethod */
  stored: boolean;
  /** set once: a second submission changes nothing */
  decided?: 'pass' | 'fail';
}

/** What the hosted pages need of the account holding a challenge. */
export interface Challenges {
  challenge(intentId: string): Challenge | undefined;
  /** Carries out the shopper's answer, once: a second one changes nothing. */
  decide(intentId: string, outcome: 'pass' | 'fail'): void;
  /** Whether the PaymentIntent still waits for the shopper (not decided, not canceled meanwhile). */
  waiting(intentId: string): boolean;
}

export const CHALLENGE_PATH = '/3d_secure_2/hosted';
const AUTHENTICATE_PATH = '/3d_secure_2/authenticate';

/** Where Stripe sends the shopper back: the `return_url` with `payment_intent` and `payment_intent_client_secret`. */
export function returnLocation(challenge: Challenge): string {
  const url = new URL(challenge.returnUrl);
  url.searchParams.set('payment_intent', challenge.intentId);
  url.searchParams.set('payment_intent_client_secret', challenge.clientSecret);
  return url.href;
}

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Plain HTML, no script: two forms, each with one labelled button, as Stripe's test challenge page offers. */
function page(challenge: Challenge): string {
  const hidden = `<input type="hidden" name="payment_intent" value="${escape(challenge.intentId)}"><input type="hidden" name="source" value="${escape(challenge.source)}">`;
  const form = (outcome: string, label: string, description: string) =>
    `<form method="post" action="${AUTHENTICATE_PATH}" aria-label="${description}">${hidden}<input type="hidden" name="outcome" value="${outcome}"><button type="submit">${label}</button></form>`;
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>3D Secure 2 test page</title></head><body><main>',
    '<h1>3D Secure 2 test page</h1><p>This is a test page of the Stripe fake: pass or fail the authentication.</p>',
    form('pass', 'Pass', 'Pass authentication'),
    form('fail', 'Fail', 'Fail authentication'),
    '</main></body></html>',
  ].join('');
}

/**
 * The shopper-facing pages Stripe hosts (`hooks.stripe.com`): `GET /3d_secure_2/hosted?payment_intent&source` shows
 * the challenge, `POST /3d_secure_2/authenticate` takes the answer and redirects to the return URL. A challenge already
 * answered (or a PaymentIntent canceled meanwhile) redirects back at once, changing nothing.
 */
export function servePage(find: (intentId: string) => Challenges | undefined, method: string, url: URL, body: string, res: ServerResponse): void {
  const fields = method === 'POST' ? new URLSearchParams(body) : url.searchParams;
  const intentId = fields.get('payment_intent') ?? '';
  const account = find(intentId);
  const challenge = account?.challenge(intentId);
  const known = account && challenge && challenge.source === fields.get('source');
  if (!known || (url.pathname !== CHALLENGE_PATH && url.pathname !== AUTHENTICATE_PATH) || (method !== 'GET' && method !== 'POST')) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    return void res.end('No such 3D Secure challenge.');
  }
  const outcome = fields.get('outcome');
  if (method === 'POST' && url.pathname === AUTHENTICATE_PATH && (outcome === 'pass' || outcome === 'fail')) account.decide(intentId, outcome);
  else if (account.waiting(intentId)) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; base-uri 'none'" });
    return void res.end(page(challenge));
  }
  res.writeHead(303, { location: returnLocation(challenge) });
  res.end();
}
