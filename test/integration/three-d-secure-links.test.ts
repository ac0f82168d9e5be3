import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as handOff } from '../../functions/hosted/3ds-hand-off.ts';
import { handler as sandboxAnswer } from '../../functions/hosted/3ds-sandbox-answer.ts';
import { handler as sandboxPage } from '../../functions/hosted/3ds-sandbox.ts';
import { config } from '../../shared/config.ts';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { connect, liveKeyOf, merchantIn } from '../support/connected-accounts.ts';
import { moveClock, resetClock } from '../support/faults.ts';
import type { HttpResult } from '../support/lambda.ts';
import { newMerchant } from '../support/merchant.ts';
import { payments } from '../support/payments.ts';
import { allowShop, fakeChallenge, follow, hosted, sandboxButton, SHOP_ORIGIN, shopperReturns } from '../support/three-d-secure.ts';

/**
 * The 3-D Secure links as an attacker meets them (docs/api.md "3-D Secure and return URLs"): a `return_url` must be
 * on the merchant's checkout origins, so this service's domain redirects nobody elsewhere; the hand-off and the return
 * are signed and expire with the shopper's hour; the sandbox passes a challenge only through its own challenge page's
 * signed answer. Whatever is forged: a page saying so, no redirect, and the payment as it was.
 */
const CHALLENGES = '4000000000003220';
const HOUR = 60 * 60_000;
const card = (number: string) => ({ type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc: '123' } });
const heldFor = (paymentId: string) => [...sandboxBooks.authorizations.values()].filter((a) => a.paymentId === paymentId);

let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());
afterEach(() => resetClock());

/** A create at the sandbox with this `return_url`. */
const payWith = (apiKey: string, returnUrl: string, number = CHALLENGES) =>
  payments.create(apiKey, { amount: 2500, currency: 'eur', routing: 'stripe', return_url: returnUrl, payment_method: card(number) });

/** A merchant whose shop is a checkout origin, and a payment there waiting for the shopper's challenge. */
async function waiting(returnUrl = `${SHOP_ORIGIN}/done`) {
  const { apiKey } = await newMerchant();
  await allowShop(apiKey);
  const created = await payWith(apiKey, returnUrl);
  expect(created.body.status, created.rawBody).toBe('requires_action');
  return { apiKey, id: created.body.id as string, nextAction: created.body.next_action.redirect_to_url.url as string };
}

/** What a refused link answers: the readable error page, and nobody sent anywhere. */
function refused(res: HttpResult) {
  expect(res.status, res.rawBody).toBe(404);
  expect(res.headers.location).toBeUndefined();
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.rawBody).toMatch(/<title>Payment page unavailable<\/title>.*not valid or has expired/);
}

/** The payment as the merchant reads it is still waiting, with no authentication recorded and nothing held. */
async function unchanged(apiKey: string, id: string) {
  expect((await payments.get(apiKey, id)).body).toMatchObject({ status: 'requires_action', three_d_secure: null });
  expect(heldFor(id)).toEqual([]);
}

/** The signed return page the sandbox provider was given, as its challenge page carries it. */
async function ourReturnPage(nextAction: string): Promise<string> {
  const challenge = new URL(await follow(handOff, nextAction));
  return challenge.searchParams.get('return_url')!;
}

const withQuery = (url: string, change: (query: URLSearchParams) => void) => {
  const changed = new URL(url);
  change(changed.searchParams);
  return changed.href;
};

describe('return_url: only on the checkout origins of the mode', () => {
  it('answers 400 url_not_allowed for a URL off the list, http, or with credentials; nothing is created', async () => {
    // Prepare: a merchant that lists nothing yet
    const { apiKey } = await newMerchant();
    // Act
    const before = await payWith(apiKey, `${SHOP_ORIGIN}/done`);
    await allowShop(apiKey);
    const off = await Promise.all(
      [
        'https://evil.example/',
        'http://shop.example/done',
        'https://shop.example.evil.example/',
        'https://me:pw@shop.example/',
        'javascript:alert(1)',
      ].map((url) => payWith(apiKey, url)),
    );
    const listed = await payWith(apiKey, `${SHOP_ORIGIN}/done`, '4000000000003055');
    // Assess
    for (const res of [before, ...off]) {
      expect(res.status, res.rawBody).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'url_not_allowed', param: 'return_url', message: expect.stringContaining('checkout_origins') });
    }
    expect(listed.status, listed.rawBody).toBe(200);
    expect((await payments.list(apiKey)).body.data.map((p: { id: string }) => p.id)).toEqual([listed.body.id]);
  });

  it("a test mode origin does not allow a live payment's return_url", async () => {
    // Prepare
    const { merchantId, secretKey } = await merchantIn('test');
    await allowShop(secretKey);
    // Act
    const live = await payWith(await liveKeyOf(merchantId), `${SHOP_ORIGIN}/done`);
    // Assess
    expect(live.status, live.rawBody).toBe(400);
    expect(live.body.error).toMatchObject({ code: 'url_not_allowed', param: 'return_url' });
  });

  it('locally, a loopback origin is allowed without being listed', async () => {
    const { apiKey } = await newMerchant();
    const res = await payWith(apiKey, 'http://localhost:3001/done', '4000000000003055');
    expect(res.status, res.rawBody).toBe(200);
    expect(res.body.status).toBe('succeeded');
  });

  it('a host with ; , quotes or CR LF answers 400, whatever is listed', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    await allowShop(apiKey);
    // Act
    const hosts = ['https://shop.example;script-src/', 'https://shop.example,evil.example/', 'https://shop.example"x/', "https://shop'example/"];
    const answers = await Promise.all([...hosts, 'https://shop.example\r\nSet-Cookie: a=b/'].map((url) => payWith(apiKey, url)));
    // Assess
    for (const res of answers) expect([res.status, res.body.error?.code], res.rawBody).toEqual([400, 'url_not_allowed']);
  });

  it("a listed URL with quotes and ; in its query: the pages' CSP and Location carry only its origin and an encoded URL", async () => {
    // Prepare
    const returnUrl = `${SHOP_ORIGIN}/done?note="x' <y>;z,w`;
    const { apiKey, id, nextAction } = await waiting(returnUrl);
    // Act
    const challengeUrl = await follow(handOff, nextAction);
    const page = await hosted(sandboxPage, challengeUrl);
    const back = await follow(sandboxAnswer, await sandboxButton(challengeUrl, 'Pass'));
    const merchant = await shopperReturns(back);
    // Assess
    expect(page.headers['content-security-policy']).toMatch(/; form-action 'self' https:\/\/shop\.example; frame-ancestors 'none'$/);
    expect(merchant.status).toBe(303);
    const location = merchant.headers.location as string;
    expect(location).toMatch(/^[\x21-\x7e]+$/);
    expect(location).not.toMatch(/["'<>]/);
    expect(new URL(location).searchParams.get('note')).toBe(`"x' <y>;z,w`);
    expect(new URL(location).searchParams.get('payment_id')).toBe(id);
    expect((await payments.get(apiKey, id)).body.status).toBe('succeeded');
  });
});

describe('the hand-off link', () => {
  it('unsigned, forged or past the hour: a page saying so, nobody sent to the provider', async () => {
    // Prepare
    const { apiKey, id, nextAction } = await waiting();
    const expires = Number(new URL(nextAction).searchParams.get('expires'));
    // Act
    const answers = await Promise.all(
      [
        withQuery(nextAction, (q) => q.delete('expires')),
        withQuery(nextAction, (q) => q.delete('signature')),
        withQuery(nextAction, (q) => q.set('expires', String(expires + 3600))),
        withQuery(nextAction, (q) => q.set('signature', '0'.repeat(64))),
      ].map((url) => hosted(handOff, url)),
    );
    moveClock(HOUR + 60_000);
    const late = await hosted(handOff, nextAction);
    // Assess
    for (const res of [...answers, late]) refused(res);
    expect(expires * 1000).toBeLessThanOrEqual(Date.now() + HOUR + 5_000);
    resetClock();
    await unchanged(apiKey, id);
    expect((await payments.void(apiKey, id)).body.status).toBe('voided');
  });
});

describe('the return from the sandbox issuer', () => {
  it('a return we did not sign changes nothing and sends nobody to the merchant', async () => {
    // Prepare
    const { apiKey, id, nextAction } = await waiting();
    const signed = await ourReturnPage(nextAction);
    // Act
    const answers = await Promise.all(
      [
        `http://localhost:3000/hosted/3ds/return/${id}?sandbox_authentication=passed`,
        withQuery(signed, (q) => q.set('signature', '0'.repeat(64))),
        withQuery(signed, (q) => q.set('expires', String(Number(q.get('expires')) + 60))),
      ].map((url) => shopperReturns(url)),
    );
    // Assess
    for (const res of answers) refused(res);
    await unchanged(apiKey, id);
    expect((await payments.void(apiKey, id)).body.status).toBe('voided');
  });

  it("a pass without the challenge page's signature of it changes nothing; the page's own pass succeeds", async () => {
    // Prepare
    const { apiKey, id, nextAction } = await waiting();
    const signed = await ourReturnPage(nextAction);
    const failed = await follow(sandboxAnswer, await sandboxButton(await follow(handOff, nextAction), 'Fail'));
    // Act
    const typedIn = await shopperReturns(withQuery(signed, (q) => q.set('sandbox_authentication', 'passed')));
    const swapped = await shopperReturns(withQuery(failed, (q) => q.set('sandbox_authentication', 'passed')));
    const afterForgeries = await payments.get(apiKey, id);
    const passed = await follow(sandboxAnswer, await sandboxButton(await follow(handOff, nextAction), 'Pass'));
    const genuine = await shopperReturns(passed);
    // Assess
    refused(typedIn);
    refused(swapped);
    expect(afterForgeries.body).toMatchObject({ status: 'requires_action', three_d_secure: null });
    expect(genuine.status).toBe(303);
    expect(genuine.headers.location).toBe(`${SHOP_ORIGIN}/done?payment_id=${id}`);
    expect((await payments.get(apiKey, id)).body).toMatchObject({
      status: 'succeeded',
      three_d_secure: { flow: 'challenge', result: 'authenticated' },
    });
  });

  it('the challenge page and its answer take only our signed return page, and the answer only with its signature', async () => {
    // Prepare
    const { apiKey, id, nextAction } = await waiting();
    const challengeUrl = await follow(handOff, nextAction);
    const pass = new URL(await sandboxButton(challengeUrl, 'Pass'));
    const unsigned = `http://localhost:3000/hosted/3ds/return/${id}`;
    // Act
    const page = await hosted(sandboxPage, `http://localhost:3000/hosted/3ds/sandbox?${new URLSearchParams({ return_url: unsigned })}`);
    const forgedAnswer = await hosted(
      sandboxAnswer,
      withQuery(pass.href, (q) => q.set('signature', '0'.repeat(64))),
    );
    const unsignedAnswer = await hosted(
      sandboxAnswer,
      withQuery(pass.href, (q) => q.set('return_url', unsigned)),
    );
    // Assess
    for (const res of [page, forgedAnswer, unsignedAnswer]) refused(res);
    await unchanged(apiKey, id);
    expect((await payments.void(apiKey, id)).body.status).toBe('voided');
  });

  it("a return after the shopper's hour changes nothing and sends nobody to the merchant", async () => {
    // Prepare: the shopper passed the challenge but comes back late
    const { apiKey, id, nextAction } = await waiting();
    const back = await follow(sandboxAnswer, await sandboxButton(await follow(handOff, nextAction), 'Pass'));
    // Act
    moveClock(HOUR + 60_000);
    const late = await shopperReturns(back);
    resetClock();
    // Assess
    refused(late);
    await unchanged(apiKey, id);
    expect((await payments.void(apiKey, id)).body.status).toBe('voided');
  });
});

describe.each([
  ['stripe', '4000000000003220', 'payment_intent'],
  ['adyen', '5454545454545454', 'redirectResult'],
] as const)('the return from the %s fake', (provider, number, field) => {
  it('comes back to our signed return with its fields added; the same return unsigned changes nothing, the signed one finishes it', async () => {
    // Prepare
    const { secretKey } = await merchantIn('test');
    await allowShop(secretKey);
    await connect(secretKey, provider, 'test');
    const created = await payments.create(secretKey, {
      amount: 3100,
      currency: 'eur',
      routing: provider,
      return_url: `${SHOP_ORIGIN}/done`,
      payment_method: card(number),
    });
    expect(created.body.status, created.rawBody).toBe('requires_action');
    const id = created.body.id as string;
    // Act
    const back = await fakeChallenge(created.body.next_action.redirect_to_url.url);
    const stripped = await shopperReturns(
      withQuery(back, (q) => {
        q.delete('expires');
        q.delete('signature');
      }),
    );
    const afterStripped = (await payments.get(secretKey, id)).body;
    const genuine = await shopperReturns(back);
    // Assess
    expect([...new URL(back).searchParams.keys()]).toEqual(expect.arrayContaining(['expires', 'signature', field]));
    refused(stripped);
    expect(afterStripped).toMatchObject({ status: 'requires_action', three_d_secure: null });
    expect(genuine.status).toBe(303);
    expect(genuine.headers.location).toBe(`${SHOP_ORIGIN}/done?payment_id=${id}`);
    expect((await payments.get(secretKey, id)).body).toMatchObject({ status: 'succeeded', provider, three_d_secure: { flow: 'challenge' } });
  });
});
