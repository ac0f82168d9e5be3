import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { stripeProvider } from '../../shared/providers/stripe/index.ts';
import { threeDSecureOf } from '../../shared/providers/stripe/three-d-secure.ts';
import type { AuthorizeRequest, AuthorizeResult, Connector, ShopperAction } from '../../shared/providers/types.ts';
import { listen } from '../../infra/local/fakes/listen.ts';
import { STRIPE_FAKE_SECRET_KEY, type StripeFake, startStripeFake } from '../../infra/local/fakes/stripe/server.ts';

// 3-D Secure at Stripe: the real SDK against the Stripe fake over HTTP; the shopper's browser is plain HTTP that
// follows the action, answers the fake's challenge page and comes back to a local return URL, which echoes the
// fields Stripe's redirect carried.
const originalBaseUrl = config.STRIPE_API_BASE_URL;
let fake: StripeFake;
let stripe: Connector;
let returnServer: Server;
let returnUrl: string;

beforeAll(async () => {
  fake = await startStripeFake();
  config.STRIPE_API_BASE_URL = fake.url;
  stripe = stripeProvider.connect({ secret_key: STRIPE_FAKE_SECRET_KEY }, { id: 'con_stripe_3ds', mode: 'test' });
  returnServer = createServer((req, res) => {
    const fields = Object.fromEntries(new URL(req.url ?? '/', 'http://return.local').searchParams);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fields));
  });
  returnUrl = `http://127.0.0.1:${await listen(returnServer)}/shop/return?order=42`;
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => returnServer.close(resolve));
  config.STRIPE_API_BASE_URL = originalBaseUrl;
});

const CHALLENGES = '4000000000003220';
const ALWAYS_CHALLENGES = '4000002760003184';
const DECLINES_AFTER = '4000008400001629';
const FRICTIONLESS = '4000000000003055';
const NO_3DS = '378282246310005';

const request = (number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => {
  const paymentId = `pay_${randomUUID()}`;
  const card = { number, exp_month: 12, exp_year: 2034, cvc: number.length === 15 ? '1234' : '123' };
  return { paymentId, idempotencyKey: `${paymentId}_1`, amount: 5000, currency: 'EUR', card, attempt: 1, ...overrides };
};
const shopperPresent = (number: string, required = false) => request(number, { authentication: { returnUrl, required } });
const sentUnder = (key: string) => fake.requests.find((r) => r.idempotencyKey === key && r.path === '/v1/payment_intents')?.body;
const holdOf = (reference: string) => fake.holds().find((hold) => hold.reference === reference);

function expectOutcome<O extends AuthorizeResult['outcome']>(result: AuthorizeResult, outcome: O): Extract<AuthorizeResult, { outcome: O }> {
  if (result.outcome !== outcome) throw new Error(`expected ${outcome}, got ${JSON.stringify(result)}`);
  return result as Extract<AuthorizeResult, { outcome: O }>;
}

/** The challenge page's form for `button` ("Pass" or "Fail"): its action and fields, as a browser would submit them. */
function formOf(html: string, button: 'Pass' | 'Fail', pageUrl: string): { action: string; body: URLSearchParams } {
  const form = [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>(.*?)<\/form>/g)].find((f) => f[2]!.includes(`>${button}</button>`));
  if (!form) throw new Error(`no ${button} form in ${html}`);
  const body = new URLSearchParams([...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
  return { action: new URL(form[1]!, pageUrl).href, body };
}

/** The shopper's browser: opens the action, answers the challenge, follows the redirect home and reads the fields. */
async function authenticate(action: ShopperAction, button: 'Pass' | 'Fail'): Promise<Record<string, string>> {
  const page = await fetch(action.url, { method: action.method });
  const { action: target, body } = formOf(await page.text(), button, action.url);
  const back = await fetch(target, { method: 'POST', body });
  expect(back.url.startsWith(returnUrl.split('?')[0]!)).toBe(true);
  return (await back.json()) as Record<string, string>;
}

/** A payment that must be challenged, waiting for the shopper. */
async function challenged(number: string, required = false) {
  const attempt = shopperPresent(number, required);
  const result = expectOutcome(await stripe.authorize(attempt), 'requires_action');
  return { attempt, ...result };
}

describe('3-D Secure without a challenge', () => {
  it('a frictionless card approves with its authentication: frictionless, authenticated, ECI 05, liability shifted', async () => {
    // Prepare
    const attempt = shopperPresent(FRICTIONLESS);
    // Act
    const result = expectOutcome(await stripe.authorize(attempt), 'approved');
    // Assess
    expect(result.threeDSecure).toEqual({ version: '2.2.0', flow: 'frictionless', result: 'authenticated', eci: '05', liability_shift: true });
    expect(holdOf(result.reference)).toMatchObject({ amount: 5000, state: 'authorized' });
    const sent = sentUnder(attempt.idempotencyKey);
    expect(sent).toMatchObject({ confirm: 'true', return_url: returnUrl, payment_method_options: { card: { request_three_d_secure: 'automatic' } } });
    expect(sent).not.toHaveProperty('error_on_requires_action');
  });

  it('the card without 3-D Secure approves with no authentication, or "not_supported" when it was required', async () => {
    // Prepare: Stripe tries 3-D Secure only when asked (or the issuer asks); this card cannot do it
    const automatic = shopperPresent(NO_3DS);
    const required = shopperPresent(NO_3DS, true);
    // Act
    const plain = expectOutcome(await stripe.authorize(automatic), 'approved');
    const attempted = expectOutcome(await stripe.authorize(required), 'approved');
    // Assess
    expect(plain.threeDSecure).toBeUndefined();
    expect(attempted.threeDSecure).toEqual({ version: null, flow: 'frictionless', result: 'not_supported', eci: null, liability_shift: false });
    expect(sentUnder(required.idempotencyKey)).toMatchObject({ payment_method_options: { card: { request_three_d_secure: 'any' } } });
  });

  it('without authentication a card that would challenge declines authentication_required, as before', async () => {
    // Prepare
    const attempts = [request(ALWAYS_CHALLENGES), request(CHALLENGES)];
    // Act
    const results = await Promise.all(attempts.map((attempt) => stripe.authorize(attempt)));
    // Assess
    for (const [i, result] of results.entries()) {
      expect(result).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
      expect(sentUnder(attempts[i]!.idempotencyKey)).toMatchObject({ error_on_requires_action: 'true' });
      expect(sentUnder(attempts[i]!.idempotencyKey)).not.toHaveProperty('return_url');
    }
  });
});

describe('3-D Secure challenge', () => {
  it('asks the shopper to go to Stripe, and approves once they pass: challenge, authenticated, liability shifted', async () => {
    // Prepare
    const { reference, action } = await challenged(CHALLENGES);
    expect(action).toEqual({
      url: expect.stringMatching(new RegExp(`^${fake.url}/3d_secure_2/hosted\\?payment_intent=${reference}&`)),
      method: 'GET',
    });
    expect(holdOf(reference)).toBeUndefined();
    // Act
    const returned = await authenticate(action, 'Pass');
    const result = expectOutcome(await stripe.completeAuthentication(reference, returned, `${reference}_complete`), 'approved');
    // Assess
    expect(returned).toEqual({
      order: '42',
      payment_intent: reference,
      payment_intent_client_secret: expect.stringMatching(`^${reference}_secret_`),
    });
    expect(result).toMatchObject({ reference, networkTransactionId: expect.stringMatching(/^\d{15}$/) });
    expect(result.threeDSecure).toEqual({ version: '2.2.0', flow: 'challenge', result: 'authenticated', eci: '05', liability_shift: true });
    expect(holdOf(reference)).toMatchObject({ amount: 5000, state: 'authorized' });
  });

  it('a failed challenge declines authentication_required, says the challenge failed, and holds nothing', async () => {
    // Prepare
    const { reference, action } = await challenged(ALWAYS_CHALLENGES);
    // Act
    const returned = await authenticate(action, 'Fail');
    const result = await stripe.completeAuthentication(reference, returned, `${reference}_complete`);
    // Assess: Stripe keeps no charge for a failed authentication, so version and ECI are unknown
    expect(result).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
    expect(expectOutcome(result, 'declined').threeDSecure).toEqual({
      version: null,
      flow: 'challenge',
      result: 'failed',
      eci: null,
      liability_shift: false,
    });
    expect(holdOf(reference)).toBeUndefined();
  });

  it("a card the issuer declines after the challenge is declined with the issuer's code", async () => {
    // Prepare
    const { reference, action } = await challenged(DECLINES_AFTER);
    // Act
    const result = await stripe.completeAuthentication(reference, await authenticate(action, 'Pass'), `${reference}_complete`);
    // Assess: Stripe's card_declined, which we record as generic_decline; the failed charge says the shopper passed
    expect(result).toMatchObject({ outcome: 'declined', declineCode: 'generic_decline' });
    expect(expectOutcome(result, 'declined').threeDSecure).toEqual({
      version: '2.2.0',
      flow: 'challenge',
      result: 'authenticated',
      eci: '05',
      liability_shift: true,
    });
    expect(holdOf(reference)).toBeUndefined();
  });

  it('required: a card the issuer would not challenge is challenged', async () => {
    // Prepare
    const { attempt, reference, action } = await challenged('4242424242424242', true);
    // Act
    const result = await stripe.completeAuthentication(reference, await authenticate(action, 'Pass'), `${reference}_complete`);
    // Assess
    expect(sentUnder(attempt.idempotencyKey)).toMatchObject({ payment_method_options: { card: { request_three_d_secure: 'any' } } });
    expect(expectOutcome(result, 'approved').threeDSecure).toMatchObject({ flow: 'challenge', result: 'authenticated' });
  });

  it('before the shopper answers, the completion still asks for the same action', async () => {
    // Prepare
    const { reference, action } = await challenged(CHALLENGES);
    // Act
    const result = await stripe.completeAuthentication(reference, {}, `${reference}_complete`);
    // Assess
    expect(result).toMatchObject({ outcome: 'requires_action', reference, action });
  });

  it('a completion asked twice, and the challenge answered twice, answer the same and authorize once', async () => {
    // Prepare
    const { reference, action } = await challenged(CHALLENGES);
    const page = await fetch(action.url).then((r) => r.text());
    const pass = formOf(page, 'Pass', action.url);
    const fail = formOf(page, 'Fail', action.url);
    const first = await fetch(pass.action, { method: 'POST', body: pass.body }).then((r) => r.json());
    const completed = await stripe.completeAuthentication(reference, first, `${reference}_complete`);
    // Act: the shopper goes back and presses Fail; the return arrives again
    const again = await fetch(fail.action, { method: 'POST', body: fail.body }).then((r) => r.json());
    const completedAgain = await stripe.completeAuthentication(reference, again, `${reference}_complete`);
    // Assess
    expect(again).toEqual(first);
    expect({ ...completedAgain, latencyMs: 0 }).toEqual({ ...completed, latencyMs: 0 });
    expect(completed.outcome).toBe('approved');
    expect(fake.holds().filter((hold) => hold.reference === reference)).toHaveLength(1);
  });

  it('a payment voided while the shopper is away: the challenge sends them back, the completion declines', async () => {
    // Prepare
    const { reference, action } = await challenged(CHALLENGES);
    expect(await stripe.void(reference, `${reference}_void`)).toEqual({ ok: true, reference });
    // Act
    const page = await fetch(action.url);
    const result = await stripe.completeAuthentication(reference, await page.json(), `${reference}_complete`);
    // Assess
    expect(page.url.startsWith(returnUrl.split('?')[0]!)).toBe(true);
    expect(result).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
    expect(holdOf(reference)).toBeUndefined();
  });

  it('the challenge page is plain HTML: labelled Pass and Fail forms, no script, a content security policy', async () => {
    // Prepare
    const { action } = await challenged(CHALLENGES);
    // Act
    const page = await fetch(action.url);
    const html = await page.text();
    // Assess
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script/i);
    expect(html).toMatch(/aria-label="Pass authentication".*<button type="submit">Pass<\/button>/);
    expect(html).toMatch(/aria-label="Fail authentication".*<button type="submit">Fail<\/button>/);
    expect((await fetch(`${fake.url}/3d_secure_2/hosted?payment_intent=pi_nope&source=x`)).status).toBe(404);
  });
});

describe('a card saved after a challenge', () => {
  it('is charged later without the shopper (merchant-initiated) without a challenge', async () => {
    // Prepare
    const first = shopperPresent(CHALLENGES);
    first.storeFor = { customerReference: `cus_${randomUUID()}`, email: null };
    const { reference, action } = expectOutcome(await stripe.authorize(first), 'requires_action');
    const saved = expectOutcome(await stripe.completeAuthentication(reference, await authenticate(action, 'Pass'), `${reference}_c`), 'approved');
    const renewal = request(CHALLENGES, { card: undefined, providerToken: saved.providerToken, initiator: { type: 'merchant' } });
    // Act
    const result = await stripe.authorize(renewal);
    // Assess
    expect(saved.providerToken).toMatch(/^cus_\w+\|pm_\w+$/);
    expect(result).toMatchObject({ outcome: 'approved' });
    expect(sentUnder(renewal.idempotencyKey)).toMatchObject({ off_session: 'true' });
    expect(sentUnder(renewal.idempotencyKey)).not.toHaveProperty('return_url');
  });

  it('4000002760003184 asks for authentication on every charge: off-session it declines authentication_required', async () => {
    // Prepare
    const first = shopperPresent(ALWAYS_CHALLENGES);
    first.storeFor = { customerReference: `cus_${randomUUID()}`, email: null };
    const { reference, action } = expectOutcome(await stripe.authorize(first), 'requires_action');
    const saved = expectOutcome(await stripe.completeAuthentication(reference, await authenticate(action, 'Pass'), `${reference}_c`), 'approved');
    // Act
    const result = await stripe.authorize(
      request(ALWAYS_CHALLENGES, { card: undefined, providerToken: saved.providerToken, initiator: { type: 'merchant' } }),
    );
    // Assess
    expect(result).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
  });
});

describe("Stripe's 3-D Secure results", () => {
  /** A PaymentIntent whose expanded charge carries `three_d_secure` as Stripe documents it. */
  const intentWith = (threeDSecure: Record<string, string | null> | null) =>
    ({ latest_charge: { payment_method_details: { card: { three_d_secure: threeDSecure } } } }) as unknown as Stripe.PaymentIntent;

  it.each([
    ['attempt_acknowledged', '06', { result: 'attempted', liability_shift: true }],
    ['exempted', null, { result: 'exempted', liability_shift: false }],
    ['failed', '07', { result: 'failed', liability_shift: false }],
    ['processing_error', null, { result: 'failed', liability_shift: false }],
    ['data_share_only', null, { result: 'not_supported', liability_shift: false }],
  ])('%s is recorded as its result, with liability shifted only when Stripe says it is', (result, eci, expected) => {
    // Prepare
    const intent = intentWith({ result, electronic_commerce_indicator: eci, authentication_flow: null, version: '2.2.0' });
    // Act
    const recorded = threeDSecureOf(intent);
    // Assess: no flow named means the shopper saw no challenge
    expect(recorded).toEqual({ version: '2.2.0', flow: 'frictionless', eci, ...expected });
  });

  it('a charge without 3-D Secure records none', () => {
    expect(threeDSecureOf(intentWith(null))).toBeUndefined();
    expect(threeDSecureOf(intentWith({ result: null, version: null }))).toBeUndefined();
  });
});
