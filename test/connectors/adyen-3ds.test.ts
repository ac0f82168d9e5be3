/**
 * Adyen's 3-D Secure redirect flow: the live connector against the Adyen fake over HTTP, the shopper played with plain
 * HTTP (the challenge page, its Pass or Fail form, Adyen's redirect back to a local return URL that records what it
 * received), then /payments/details with the `redirectResult` the shopper brought back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { adyenProvider } from '../../shared/providers/adyen/index.ts';
import { threeDSecureOf } from '../../shared/providers/adyen/three-d-secure.ts';
import type { AuthorizeRequest, AuthorizeResult, Connector, ShopperAction } from '../../shared/providers/types.ts';
import { type AdyenFakeServer, ADYEN_FAKE_CREDENTIALS, startAdyenFake } from '../../infra/local/fakes/adyen/server.ts';

const CHALLENGE_BY_GET = '5454545454545454';
const CHALLENGE_BY_POST = '4917610000000000';
const FRICTIONLESS = '4242424242424242';
const NO_3DS = '378282246310005';

let fake: AdyenFakeServer;
let adyen: Connector;
let merchant: Server;
let returnBase: string;
/** What the local return URL received, by the `payment` query field the test put in it. */
const returns = new Map<string, { method: string; fields: Record<string, string> }>();
const originalBaseUrl = config.ADYEN_CHECKOUT_BASE_URL;

beforeAll(async () => {
  fake = await startAdyenFake({ port: 0 });
  config.ADYEN_CHECKOUT_BASE_URL = fake.url;
  adyen = adyenProvider.connect(ADYEN_FAKE_CREDENTIALS, { id: 'con_adyen_3ds', mode: 'test' });
  merchant = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://return.local');
      const fields = { ...Object.fromEntries(url.searchParams), ...Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())) };
      returns.set(fields.payment ?? '', { method: req.method ?? '', fields });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('back');
    });
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  returnBase = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/hosted/3ds/return`;
});

afterEach(() => {
  fake.clearFaults();
  expect(fake.contractViolations).toEqual([]);
});

afterAll(async () => {
  await fake.close();
  await new Promise<void>((resolve) => merchant.close(() => resolve()));
  if (originalBaseUrl === undefined) delete config.ADYEN_CHECKOUT_BASE_URL;
  else config.ADYEN_CHECKOUT_BASE_URL = originalBaseUrl;
});

/** A shopper-present payment of `number`, unique to the test; `authentication` unless `null`. */
function payment(number: string, authentication: AuthorizeRequest['authentication'] | null = { returnUrl: '', required: false }): AuthorizeRequest {
  const paymentId = `pay_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  return {
    paymentId,
    idempotencyKey: `${paymentId}_1`,
    amount: 4200,
    currency: 'EUR',
    card: { number, exp_month: 3, exp_year: 2030, cvc: '737' },
    attempt: 1,
    ...(authentication ? { authentication: { ...authentication, returnUrl: `${returnBase}?payment=${paymentId}` } } : {}),
  };
}

const sentBody = (key: string) => fake.requests.find((r) => r.idempotencyKey === key && r.operation === 'authorize')?.body as Record<string, unknown>;
const holdsUnder = (key: string) => fake.holds().filter((h) => h.idempotencyKey === key);

function waiting(result: AuthorizeResult) {
  if (result.outcome !== 'requires_action') throw new Error(`expected requires_action, got ${JSON.stringify(result)}`);
  return result;
}

/**
 * The shopper with a plain HTTP client: opens Adyen's redirect (GET, or the POST form), reads the challenge form,
 * presses `button` (with `password`, the page's own unless given) and follows Adyen's redirect to the return URL.
 * Answers the challenge page's HTML and what the return URL received.
 */
async function shopperAnswers(action: ShopperAction, paymentId: string, button: 'Pass' | 'Fail', password?: string) {
  const page = await fetch(action.url, action.method === 'GET' ? {} : { method: 'POST', body: new URLSearchParams(action.data) });
  const html = await page.text();
  const form = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  const inputs = Object.fromEntries([...html.matchAll(/<input [^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
  const outcome = /<button type="submit" name="outcome" value="([^"]+)">([^<]+)<\/button>/g;
  const value = [...html.matchAll(outcome)].find((m) => m[2] === button)?.[1];
  if (!form || !value) throw new Error(`no challenge form with ${button} in ${html}`);
  const fields = new URLSearchParams({ ...inputs, ...(password === undefined ? {} : { password }), outcome: value });
  const back = await fetch(new URL(form, action.url), { method: 'POST', body: fields });
  return { page: { status: page.status, html }, landed: back.url, returned: returns.get(paymentId) };
}

describe('Adyen 3-D Secure: what the connector asks for', () => {
  it('sends the real returnUrl, the Web channel, a full browserInfo and the redirect flow; `required` asks for a challenge', async () => {
    // Prepare
    const automatic = payment(FRICTIONLESS);
    const required = payment(FRICTIONLESS, { returnUrl: '', required: true });
    // Act
    await adyen.authorize(automatic);
    await adyen.authorize(required);
    // Assess
    const browserInfo = expect.objectContaining({
      userAgent: expect.any(String),
      acceptHeader: expect.any(String),
      colorDepth: 24,
      language: 'en-GB',
    });
    expect(sentBody(automatic.idempotencyKey)).toMatchObject({
      returnUrl: automatic.authentication!.returnUrl,
      channel: 'Web',
      origin: new URL(returnBase).origin,
      browserInfo,
      authenticationData: { threeDSRequestData: { nativeThreeDS: 'disabled' } },
    });
    expect(sentBody(automatic.idempotencyKey)).not.toHaveProperty('threeDS2RequestData');
    expect(sentBody(required.idempotencyKey)).toMatchObject({
      authenticationData: { attemptAuthentication: 'always', threeDSRequestData: { nativeThreeDS: 'disabled' } },
      threeDS2RequestData: { threeDSRequestorChallengeInd: '04' },
    });
  });

  it('without `authentication`, never attempts 3DS: a challenge card is declined authentication_required, as before', async () => {
    // Prepare
    const request = payment(CHALLENGE_BY_GET, null);
    // Act
    const result = await adyen.authorize(request);
    // Assess
    expect(result).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
    expect(sentBody(request.idempotencyKey)).toMatchObject({ authenticationData: { attemptAuthentication: 'never' } });
    expect(sentBody(request.idempotencyKey).returnUrl).toBe('https://no-redirect.invalid/adyen');
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
  });
});

describe('Adyen 3-D Secure: frictionless and not supported', () => {
  it('approves a frictionless card with its 3DS2 result: authenticated, ECI, liability shifted', async () => {
    // Act
    const result = await adyen.authorize(payment(FRICTIONLESS));
    // Assess
    expect(result).toMatchObject({
      outcome: 'approved',
      threeDSecure: { version: '2.2.0', flow: 'frictionless', result: 'authenticated', eci: '05', liability_shift: true },
    });
  });

  it('approves the card without 3DS (378282246310005) as not_supported with authentication, and without any result without it', async () => {
    // Act
    const asked = await adyen.authorize(payment(NO_3DS));
    const notAsked = await adyen.authorize(payment(NO_3DS, null));
    // Assess
    expect(asked).toMatchObject({
      outcome: 'approved',
      threeDSecure: { version: null, flow: 'frictionless', result: 'not_supported', eci: null, liability_shift: false },
    });
    expect(notAsked.outcome).toBe('approved');
    expect(notAsked).not.toHaveProperty('threeDSecure');
  });
});

describe('Adyen 3-D Secure: the challenge', () => {
  it.each([
    ['GET', CHALLENGE_BY_GET, '02'],
    ['POST', CHALLENGE_BY_POST, '05'],
  ])('a challenge by %s passed: requires_action, the page, the redirect back, then approved with its result', async (method, number, eci) => {
    // Prepare
    const request = payment(number);
    // Act
    const started = waiting(await adyen.authorize(request));
    const shopper = await shopperAnswers(started.action, request.paymentId, 'Pass');
    const done = await adyen.completeAuthentication(started.reference, shopper.returned!.fields, `${request.paymentId}_return`);
    // Assess
    expect(started.action).toMatchObject({ method, url: expect.stringContaining(`${fake.url}/checkoutshopper/threeDS/redirect`) });
    expect(shopper.page.status).toBe(200);
    expect(shopper.page.html).toMatch(/<label for="password">Password<\/label>/);
    expect(shopper.page.html).not.toMatch(/<script/i);
    expect(shopper.returned).toEqual({ method: 'GET', fields: { payment: request.paymentId, redirectResult: expect.any(String) } });
    expect(done).toMatchObject({
      outcome: 'approved',
      reference: started.reference,
      threeDSecure: { version: '2.2.0', flow: 'challenge', result: 'authenticated', eci, liability_shift: true },
    });
    expect(holdsUnder(request.idempotencyKey)).toMatchObject([{ reference: started.reference, state: 'authorized', amount: 4200 }]);
    const details = fake.requests.filter((r) => r.operation === 'complete_authentication').at(-1);
    expect(details?.body).toEqual({ details: { redirectResult: shopper.returned!.fields.redirectResult } });
  });

  it.each([
    ['Fail', undefined],
    ['Pass with a wrong password', 'letmein'],
  ])('a challenge answered %s is declined authentication_required with the failed result, and nothing is held', async (_case, password) => {
    // Prepare
    const request = payment(CHALLENGE_BY_GET);
    const started = waiting(await adyen.authorize(request));
    const shopper = await shopperAnswers(started.action, request.paymentId, password ? 'Pass' : 'Fail', password);
    // Act
    const done = await adyen.completeAuthentication(started.reference, shopper.returned!.fields, `${request.paymentId}_return`);
    // Assess: Adyen's 3DS fields of the refusal (Mastercard's ECI 00: not authenticated)
    expect(done).toMatchObject({
      outcome: 'declined',
      declineCode: 'authentication_required',
      threeDSecure: { version: '2.2.0', flow: 'challenge', result: 'failed', eci: '00', liability_shift: false },
    });
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
  });

  it('`required` challenges a card that would pass frictionless', async () => {
    // Act
    const result = await adyen.authorize(payment(FRICTIONLESS, { returnUrl: '', required: true }));
    // Assess
    expect(waiting(result).action.method).toBe('GET');
  });

  it('a completion asked twice (same key, another key) and a second return answer the same, and authorize once', async () => {
    // Prepare
    const request = payment(CHALLENGE_BY_GET);
    const started = waiting(await adyen.authorize(request));
    const first = await shopperAnswers(started.action, request.paymentId, 'Pass');
    const again = await shopperAnswers(started.action, request.paymentId, 'Fail');
    // Act
    const done = await adyen.completeAuthentication(started.reference, first.returned!.fields, `${request.paymentId}_return`);
    const sameKey = await adyen.completeAuthentication(started.reference, first.returned!.fields, `${request.paymentId}_return`);
    const otherKey = await adyen.completeAuthentication(started.reference, again.returned!.fields, `${request.paymentId}_return2`);
    // Assess
    expect(again.returned!.fields.redirectResult).toBe(first.returned!.fields.redirectResult);
    expect(done.outcome).toBe('approved');
    expect(sameKey).toMatchObject({ outcome: 'approved', reference: started.reference });
    expect(otherKey).toMatchObject({ outcome: 'approved', reference: started.reference });
    expect(holdsUnder(request.idempotencyKey)).toHaveLength(1);
  });

  it('an answer lost at the completion is unknown, and asking again under the same key finds the authorization', async () => {
    // Prepare
    const request = payment(CHALLENGE_BY_GET);
    const started = waiting(await adyen.authorize(request));
    const { returned } = await shopperAnswers(started.action, request.paymentId, 'Pass');
    fake.inject('complete_authentication', { kind: 'accept_then_drop' });
    // Act
    const lost = await adyen.completeAuthentication(started.reference, returned!.fields, `${request.paymentId}_return`);
    const asked = await adyen.completeAuthentication(started.reference, returned!.fields, `${request.paymentId}_return`);
    // Assess
    expect(lost.outcome).toBe('unknown');
    expect(asked).toMatchObject({ outcome: 'approved', reference: started.reference });
    expect(holdsUnder(request.idempotencyKey)).toHaveLength(1);
  });

  it.each([
    ['voided by its pspReference', (key: string, reference: string) => adyen.void(reference, `${key}_void`)],
    ['cancelled by our reference (the technical cancel)', (key: string) => adyen.reverse(key)],
  ])('a payment %s while the shopper is away ends Cancelled: declined authentication_required, nothing held', async (_case, cancel) => {
    // Prepare
    const request = payment(CHALLENGE_BY_GET);
    const started = waiting(await adyen.authorize(request));
    // Act
    const cancelled = await cancel(request.idempotencyKey, started.reference);
    const { returned } = await shopperAnswers(started.action, request.paymentId, 'Pass');
    const done = await adyen.completeAuthentication(started.reference, returned!.fields, `${request.paymentId}_return`);
    // Assess
    expect(cancelled.ok).toBe(true);
    expect(done).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
  });

  it("another payment's result, or none, finishes nothing here (a soft failure) and leaves this payment waiting", async () => {
    // Prepare
    const mine = payment(CHALLENGE_BY_GET);
    const other = payment(CHALLENGE_BY_GET);
    const started = waiting(await adyen.authorize(mine));
    const otherStarted = waiting(await adyen.authorize(other));
    const { returned } = await shopperAnswers(otherStarted.action, other.paymentId, 'Pass');
    // Act
    const foreign = await adyen.completeAuthentication(started.reference, returned!.fields, `${mine.paymentId}_return`);
    const empty = await adyen.completeAuthentication(started.reference, { payment: mine.paymentId }, `${mine.paymentId}_return2`);
    // Assess
    expect(foreign).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(empty).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(holdsUnder(mine.idempotencyKey)).toEqual([]);
  });

  it('a card stored during a challenged payment is charged later by the merchant without a challenge', async () => {
    // Prepare
    const request = { ...payment(CHALLENGE_BY_GET), storeFor: { customerReference: `cus_${randomUUID()}` } };
    const started = waiting(await adyen.authorize(request));
    const { returned } = await shopperAnswers(started.action, request.paymentId, 'Pass');
    const done = await adyen.completeAuthentication(started.reference, returned!.fields, `${request.paymentId}_return`);
    if (done.outcome !== 'approved' || !done.providerToken) throw new Error(`expected a stored card, got ${JSON.stringify(done)}`);
    // Act
    const renewal = await adyen.authorize({
      ...payment(CHALLENGE_BY_GET, null),
      card: undefined,
      providerToken: done.providerToken,
      initiator: { type: 'merchant' },
    });
    // Assess
    expect(renewal.outcome).toBe('approved');
    expect(renewal).not.toHaveProperty('threeDSecure');
  });
});

describe("Adyen's 3DS fields as our result", () => {
  it.each([
    [{ threeDOffered: 'true', threeDOfferedResponse: 'Y', threeDAuthenticated: 'false', threeDAuthenticatedResponse: 'A', eci: '06' }, 'attempted'],
    [{ threeDOffered: 'false', scaExemptionRequested: 'lowValue', eci: 'N/A' }, 'exempted'],
    [{ threeDOffered: 'true', threeDOfferedResponse: 'C', threeDAuthenticated: 'false', threeDAuthenticatedResponse: 'N' }, 'failed'],
    [{ threeDOffered: 'true', threeDAuthenticated: 'false', threeDAuthenticatedResponse: 'U' }, 'not_supported'],
  ])('%j is %s', (data, result) => {
    expect(threeDSecureOf(data)?.result).toBe(result);
  });

  it('says nothing when Adyen returns no 3DS fields', () => {
    expect(threeDSecureOf({ authCode: '123456' })).toBeUndefined();
  });
});
