/**
 * The Adyen fake's 3-D Secure (redirect flow): which payments authenticate and how, the challenges waiting for a
 * shopper, the challenge page Adyen hosts (plain HTML, a password and Pass / Fail, no script) and the redirect back
 * to the payment's `returnUrl` with `redirectResult`, which /payments/details then redeems (server.ts).
 *
 * Cards (docs/api.md "Test mode"): Adyen's 3DS2 test cards 5454 5454 5454 5454 (redirect by GET) and
 * 4917 6100 0000 0000 (redirect by POST form) always challenge; with `threeDSRequestorChallengeInd` 03/04 every other
 * enrolled card does too; 378282246310005 is not enrolled; any other card authenticates frictionless. Without the
 * shopper's browser (`browserInfo`) or with `attemptAuthentication: never` nothing authenticates and a challenge card
 * is refused `38 Authentication required`. A merchant-initiated charge (`ContAuth`) is exempt.
 */
import { randomBytes } from 'node:crypto';

export const CHALLENGE_CARDS: Readonly<Record<string, 'GET' | 'POST'>> = { '5454545454545454': 'GET', '4917610000000000': 'POST' };
export const NOT_ENROLLED_CARD = '378282246310005';
export const CHALLENGE_PASSWORD = 'password';
export const CHALLENGE_PATHS = { redirect: '/checkoutshopper/threeDS/redirect', submit: '/checkoutshopper/threeDS/challenge' } as const;

/** The fields of a /payments request that decide its authentication. */
export type AuthenticatingRequest = {
  returnUrl: string;
  browserInfo?: object;
  shopperInteraction?: string;
  authenticationData?: { attemptAuthentication?: string };
  threeDS2RequestData?: { threeDSRequestorChallengeInd?: string };
};

export type Authentication =
  /** no 3DS: answered as without it (no 3DS data) */
  | { kind: 'none' }
  /** 3DS needed and not possible: refused 38 */
  | { kind: 'refuse' }
  /** a request Adyen refuses as invalid (422) */
  | { kind: 'invalid'; message: string }
  | { kind: 'frictionless'; additionalData: Record<string, string> }
  | { kind: 'challenge'; method: 'GET' | 'POST' };

export function authenticationOf(request: AuthenticatingRequest, number: string, brand: string): Authentication {
  const attempt = request.authenticationData?.attemptAuthentication;
  const challengeCard = CHALLENGE_CARDS[number];
  if (request.shopperInteraction === 'ContAuth') return { kind: 'none' };
  if (attempt === 'always' && !request.browserInfo) return { kind: 'invalid', message: 'browserInfo is required for 3D Secure on the Web channel' };
  if (attempt === 'never' || !request.browserInfo) return challengeCard ? { kind: 'refuse' } : { kind: 'none' };
  if (!URL.canParse(request.returnUrl) || !/^https?:$/.test(new URL(request.returnUrl).protocol))
    return { kind: 'invalid', message: 'returnUrl must be an http(s) URL for a redirect' };
  if (number === NOT_ENROLLED_CARD) return { kind: 'frictionless', additionalData: notEnrolled() };
  const asked = ['03', '04'].includes(request.threeDS2RequestData?.threeDSRequestorChallengeInd ?? '');
  if (challengeCard || asked) return { kind: 'challenge', method: challengeCard ?? 'GET' };
  return { kind: 'frictionless', additionalData: authenticated(brand, 'Y') };
}

/** ECI of an authenticated / failed 3DS by brand (Visa and Amex 05 / 07, Mastercard 02 / 00). */
const eciOf = (brand: string, ok: boolean) => (brand === 'mc' ? (ok ? '02' : '00') : ok ? '05' : '07');

/** What Adyen returns in `additionalData` (ResponseAdditionalDataCommon) for an authenticated payment. */
export function authenticated(brand: string, offeredResponse: 'Y' | 'C'): Record<string, string> {
  return {
    threeDOffered: 'true',
    threeDOfferedResponse: offeredResponse,
    threeDAuthenticated: 'true',
    threeDAuthenticatedResponse: 'Y',
    threeDSVersion: '2.2.0',
    eci: eciOf(brand, true),
    liabilityShift: 'true',
    cavv: randomBytes(20).toString('base64'),
  };
}

/** A challenge the shopper failed. */
export const failedChallenge = (brand: string): Record<string, string> => ({
  threeDOffered: 'true',
  threeDOfferedResponse: 'C',
  threeDAuthenticated: 'false',
  threeDAuthenticatedResponse: 'N',
  threeDSVersion: '2.2.0',
  eci: eciOf(brand, false),
  liabilityShift: 'false',
});

const notEnrolled = (): Record<string, string> => ({
  threeDOffered: 'false',
  threeDOfferedResponse: 'N',
  threeDAuthenticated: 'false',
  eci: 'N/A',
  liabilityShift: 'false',
});

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const token = (length: number) => Array.from(randomBytes(length), (b) => ALPHABET[b % ALPHABET.length]).join('');

/** A payment waiting for its shopper, until /payments/details redeems the result. */
export interface Challenge<Answer, Request> {
  /** Adyen's `MD`: names the challenge on the shopper's pages */
  session: string;
  pspReference: string;
  merchantAccount: string;
  merchantReference: string;
  /** the /payments request (the card stays in the fake's memory) and its key */
  request: Request;
  idempotencyKey?: string;
  returnUrl: string;
  /** set when the shopper answered the challenge */
  redirectResult?: string;
  passed?: boolean;
  /** cancelled by the merchant while the shopper was away */
  cancelled: boolean;
  /** the /payments/details answer, once given: the same again for the same result */
  answer?: Answer;
}

export class AdyenChallenges<Answer, Request> {
  private readonly bySession = new Map<string, Challenge<Answer, Request>>();
  private readonly byResult = new Map<string, Challenge<Answer, Request>>();

  /** A new challenge, and the redirect action that sends the shopper to it (GET with `MD` in the query, or a POST form). */
  start(origin: string, method: 'GET' | 'POST', challenge: Omit<Challenge<Answer, Request>, 'session' | 'cancelled'>) {
    const session = token(24);
    this.bySession.set(session, { ...challenge, session, cancelled: false });
    const url = `${origin}${CHALLENGE_PATHS.redirect}`;
    return method === 'GET'
      ? { paymentMethodType: 'scheme', type: 'redirect' as const, method, url: `${url}?MD=${session}` }
      : { paymentMethodType: 'scheme', type: 'redirect' as const, method, url, data: { MD: session, PaReq: randomBytes(48).toString('base64') } };
  }

  session(session: string) {
    return this.bySession.get(session);
  }

  redeemable(redirectResult: string) {
    return this.byResult.get(redirectResult);
  }

  /** Cancels the waiting payments of `pspReference` or of our `merchantReference` (a technical cancel). */
  cancel(merchantAccount: string, match: { pspReference?: string; merchantReference?: string }): Challenge<Answer, Request>[] {
    const hit = [...this.bySession.values()].filter(
      (c) =>
        c.merchantAccount === merchantAccount &&
        !c.answer &&
        (c.pspReference === match.pspReference || c.merchantReference === match.merchantReference),
    );
    for (const challenge of hit) challenge.cancelled = true;
    return hit;
  }

  /** The shopper's answer: once; asked again (the back button), the first answer's result. */
  answer(challenge: Challenge<Answer, Request>, password: string, outcome: string): string {
    if (!challenge.redirectResult) {
      challenge.passed = outcome === 'pass' && password === CHALLENGE_PASSWORD;
      challenge.redirectResult = token(64);
      this.byResult.set(challenge.redirectResult, challenge);
    }
    return challenge.redirectResult;
  }
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Adyen's test issuer page: the password (filled in with the test one) and Pass / Fail, as forms. */
export function challengePage(session: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>3D Secure 2 test challenge</title></head>
<body>
<main>
<h1>Authenticate your payment</h1>
<p>Adyen's test issuer. The test password is <code>${CHALLENGE_PASSWORD}</code>.</p>
<form method="post" action="${CHALLENGE_PATHS.submit}">
<input type="hidden" name="MD" value="${escape(session)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="off" value="${CHALLENGE_PASSWORD}">
<button type="submit" name="outcome" value="pass">Pass</button>
<button type="submit" name="outcome" value="fail">Fail</button>
</form>
</main>
</body>
</html>
`;
}

/** The return URL with Adyen's `redirectResult` added to its own query. */
export function returnTo(returnUrl: string, redirectResult: string): string {
  const url = new URL(returnUrl);
  url.searchParams.append('redirectResult', redirectResult);
  return url.href;
}
