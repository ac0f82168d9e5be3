import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as handOff } from '../../functions/hosted/3ds-hand-off.ts';
import { handler as returned } from '../../functions/hosted/3ds-return.ts';
import { handler as sandboxAnswer } from '../../functions/hosted/3ds-sandbox-answer.ts';
import { handler as payPage } from '../../functions/hosted/pay.ts';
import { handler as paySubmit } from '../../functions/hosted/pay-submit.ts';
import { config } from '../../shared/config.ts';
import { clock } from '../../shared/model/clock.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { advanceClockTo } from '../support/clocks.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { newMerchant, testOwner } from '../support/merchant.ts';
import { payments } from '../support/payments.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { DUE, read, subscribedOnCard } from '../support/recovery.ts';
import { sandboxButton } from '../support/three-d-secure.ts';

/**
 * The hosted payment link (docs/api.md "Subscription recovery"): a renewal the issuer wants authenticated waits for
 * the customer, who gets `/hosted/pay/inv_…` and pays there, through 3-D Secure. On a test clock, through the
 * handlers as API Gateway would invoke them.
 */
const ALWAYS_CHALLENGES = '4000002760003184';
// The renewal worker's links are made from the stage's public URL, as deployed and under `npm start`.
const realPublicUrl = config.PUBLIC_API_URL;
beforeAll(() => void (config.PUBLIC_API_URL = 'http://localhost:3000'));
afterAll(() => void (config.PUBLIC_API_URL = realPublicUrl));

/** A renewal declined authentication_required on its due date: the link the event carries, as a path. */
async function waitingForCustomer() {
  const { apiKey, merchantId } = await newMerchant();
  const { clockId, subscriptionId } = await subscribedOnCard(apiKey, ALWAYS_CHALLENGES);
  await advanceClockTo(apiKey, clockId, `${DUE}T10:00:00Z`);
  const [required] = await read.events(merchantId, 'invoice.payment_action_required');
  const link = new URL(required!.data.object.hosted_payment_url as string);
  return { apiKey, merchantId, clockId, subscriptionId, invoiceId: required!.data.object.id as string, link: `${link.pathname}${link.search}` };
}

const get = (path: string) => invokeHttp(payPage, apiEvent({ path }));
/**
 * The page's form as the shopper's browser posts it: from the page, so with the service's own Origin (by default);
 * each from an address of its own (the per-address rate limit is not what these tests are about).
 */
const anyAddress = () => `10.${Array.from({ length: 3 }, () => Math.floor(Math.random() * 250) + 1).join('.')}`;
const post = (path: string, form: Record<string, string>, from: Record<string, string> = { Origin: 'http://localhost:3000' }) =>
  invokeHttp(
    paySubmit,
    apiEvent({
      method: 'POST',
      path,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...from },
      body: new URLSearchParams(form).toString(),
      sourceIp: anyAddress(),
    }),
  );
const formIdOf = (html: string) => /name="form_id" value="([^"]+)"/.exec(html)![1]!;
const location = (res: { headers: Record<string, unknown> }) => {
  const url = new URL(res.headers.location as string, 'http://localhost:3000');
  return `${url.pathname}${url.search}`;
};

/** The shopper through the sandbox issuer's challenge, from the hand-off URL, back to where the payment returns. */
async function throughChallenge(handOffUrl: string, answer: 'passed' | 'failed'): Promise<string> {
  const follow = async (handler: HttpHandler, path: string) => location(await invokeHttp(handler, apiEvent({ path })));
  const challenge = new URL(await follow(handOff, new URL(handOffUrl).pathname + new URL(handOffUrl).search), 'http://localhost:3000');
  const button = new URL(await sandboxButton(challenge.href, answer === 'passed' ? 'Pass' : 'Fail'));
  return follow(returned, await follow(sandboxAnswer, `${button.pathname}${button.search}`));
}

describe('a renewal the issuer wants authenticated waits for the customer to pay through the hosted link', () => {
  it('e-mails the link and emits invoice.payment_action_required; the subscription and invoice wait, saying why', async () => {
    // Prepare + Act
    const { apiKey, subscriptionId, invoiceId, link } = await waitingForCustomer();
    // Assess
    expect(link).toMatch(new RegExp(`^/hosted/pay/${invoiceId}\\?expires=\\d+&signature=[0-9a-f]{64}$`));
    const sub = await read.subscription(apiKey, subscriptionId);
    expect(sub).toMatchObject({ status: 'past_due', retry_at: null, retry_reason: expect.stringContaining('authentication_required') });
    const mail = listLocalOutbox().find((m) => m.text.includes(invoiceId));
    expect(mail?.text).toContain(`/hosted/pay/${invoiceId}?expires=`);
  });

  it('a GET of the link (a link scanner) changes nothing: no payment, the invoice still open', async () => {
    // Prepare
    const { apiKey, merchantId, subscriptionId, invoiceId, link } = await waitingForCustomer();
    // Act
    const pages = await Promise.all([get(link), get(link), get(`${link}&payment_id=pay_00000000000000000000000000`)]);
    // Assess
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.rawBody).toContain('<title>Pay invoice INV-');
      expect(page.rawBody).toContain('with Visa •••• 3184');
    }
    expect(await read.charges(merchantId, subscriptionId)).toHaveLength(1);
    expect(await read.invoice(apiKey, invoiceId)).toMatchObject({ status: 'sent', paid_at: null });
  });

  it('the customer pays with the saved card through a 3-D Secure challenge: the invoice paid, the renewal completed by the next run', async () => {
    // Prepare
    const { apiKey, merchantId, clockId, subscriptionId, invoiceId, link } = await waitingForCustomer();
    const page = await get(link);
    // Act: the form, then their bank (the page sends them on), then back
    const sent = await post(link, { pay_with: 'saved', form_id: formIdOf(page.rawBody) });
    const waiting = await get(location(sent));
    const bankUrl = /<a href="([^"]+)">Continue to your bank<\/a>/.exec(waiting.rawBody)![1]!.replaceAll('&amp;', '&');
    const backAt = await throughChallenge(bankUrl, 'passed');
    const done = await get(backAt);
    await advanceClockTo(apiKey, clockId, `${DUE}T12:00:00Z`);
    // Assess
    expect(sent.status).toBe(303);
    expect(waiting.rawBody).toContain('<meta http-equiv="refresh" content="0;url=');
    expect(backAt).toMatch(new RegExp(`^/hosted/pay/${invoiceId}\\?expires=\\d+&signature=[0-9a-f]{64}&payment_id=pay_`));
    expect(done.rawBody).toContain(`is paid</title>`);
    const paid = await read.invoice(apiKey, invoiceId);
    expect(paid).toMatchObject({ status: 'paid', payment_id: new URL(backAt, 'http://x').searchParams.get('payment_id') });
    expect((await payments.get(apiKey, paid.payment_id)).body).toMatchObject({
      status: 'captured',
      three_d_secure: { flow: 'challenge', result: 'authenticated' },
    });
    // the renewal run found the invoice paid: no charge of its own after the declined one
    expect((await read.charges(merchantId, subscriptionId)).map((c) => c.status)).toEqual(['failed']);
    expect(await read.subscription(apiKey, subscriptionId)).toMatchObject({ status: 'active', current_period_start: DUE, latest_invoice: invoiceId });
  });

  it('a declined new card shows the page again; the same form sent twice at once pays once', async () => {
    // Prepare
    const { apiKey, merchantId, invoiceId, link } = await waitingForCustomer();
    const card = { pay_with: 'card', exp: '12 / 34', cvc: '123' };
    // Act
    const declined = await post(link, { ...card, form_id: formIdOf((await get(link)).rawBody), number: '4000 0000 0000 0002' });
    const form = { ...card, form_id: formIdOf(declined.rawBody), number: '4242 4242 4242 4242' };
    const [one, two] = await Promise.all([post(link, form), post(link, form)]);
    // Assess
    expect(declined.status).toBe(200);
    expect(declined.rawBody).toContain('role="alert">Your card was declined. Try another card.</p>');
    expect([one.status, two.status]).toEqual([303, 303]);
    expect(location(one)).toBe(location(two));
    // the customer's payments of the invoice (the renewal's own declined charge names it too, with its subscription)
    const ofInvoice = (await listPayments(testOwner(merchantId), {}, { limit: 100 })).data.filter(
      (p) => p.metadata.invoice_id === invoiceId && !p.metadata.subscription_id,
    );
    expect(ofInvoice.map((p) => p.status).sort()).toEqual(['captured', 'failed']);
    expect(await read.invoice(apiKey, invoiceId)).toMatchObject({ status: 'paid', payment_id: ofInvoice.find((p) => p.status === 'captured')!.id });
  });

  it('a forged, expired or missing signature answers 404; a card typed wrong, the page with each error next to its field', async () => {
    // Prepare
    const { invoiceId, link } = await waitingForCustomer();
    const forged = link.replace(/signature=[0-9a-f]{4}/, 'signature=0000');
    // Act
    const answers = await Promise.all([
      get(forged),
      get(`/hosted/pay/${invoiceId}`),
      post(forged, { pay_with: 'saved', form_id: `1.${'0'.repeat(36)}` }),
    ]);
    const badForm = await post(link, { pay_with: 'card', form_id: formIdOf((await get(link)).rawBody), number: '4242', exp: '13 / 30', cvc: '1' });
    // Assess
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404]);
    expect(badForm.status).toBe(200);
    expect(badForm.rawBody).toContain('id="number-error" role="alert">Enter the 13 to 19 digits of the card number.</p>');
    expect(badForm.rawBody).toContain('id="exp-error" role="alert">Enter the expiry as MM / YY.</p>');
    expect(badForm.rawBody).toContain('id="cvc-error" role="alert">Enter the 3 or 4 digit security code.</p>');
    expect(badForm.rawBody).toContain('value="13 / 30"');
    expect(badForm.rawBody).toContain('<form');
  });
});

/** The customer's own payments of the invoice (the renewal's declined charge names it too, with its subscription). */
const paymentsOfInvoice = async (merchantId: string, invoiceId: string) =>
  (await listPayments(testOwner(merchantId), {}, { limit: 100 })).data.filter(
    (p) => p.metadata.invoice_id === invoiceId && !p.metadata.subscription_id,
  );

const CARD = { pay_with: 'card', exp: '12 / 34', cvc: '123' };

/** Declines are counted by clock hour: the clock is moved to the middle of one, so a test never spans two. */
const realNow = clock.now;
afterEach(() => void (clock.now = realNow));
function midHour() {
  const start = realNow();
  const shift = 1_800_000 - (start % 3_600_000);
  clock.now = () => realNow() + shift;
}

describe('the payment page tells a card tester nothing, and takes a few declined cards only', () => {
  it.each([
    ['insufficient_funds', '4000 0000 0000 9995'],
    ['stolen_card', '4000 0000 0000 9979'],
  ])('a %s decline reads "Your card was declined. Try another card."; the merchant sees the code', async (code, number) => {
    // Prepare
    const { apiKey, merchantId, invoiceId, link } = await waitingForCustomer();
    // Act
    const declined = await post(link, { ...CARD, form_id: formIdOf((await get(link)).rawBody), number });
    // Assess
    expect(declined.status).toBe(200);
    expect(declined.rawBody).toContain('<p role="alert">Your card was declined. Try another card.</p>');
    expect(declined.rawBody).not.toContain(code);
    expect(declined.rawBody).not.toMatch(/insufficient|stolen|decline_code/);
    const [payment] = await paymentsOfInvoice(merchantId, invoiceId);
    expect((await payments.get(apiKey, payment!.id)).body).toMatchObject({ status: 'failed', decline_code: code });
    // the page the shopper comes back to (payment_id) says the same
    const back = await get(`${link}&payment_id=${payment!.id}`);
    expect(back.rawBody).toContain('<p role="alert">Your card was declined. Try another card.</p>');
    expect(back.rawBody).not.toContain(code);
  });

  it('takes 5 declined cards in an hour, then no card (not even a good one) and asks the shopper to contact the merchant', async () => {
    // Prepare
    const { apiKey, merchantId, invoiceId, link } = await waitingForCustomer();
    midHour();
    const keptOpen = formIdOf((await get(link)).rawBody);
    let page = await get(link);
    // Act: five declined cards, one after the other as a shopper would, then a good card in a form served before
    for (let i = 0; i < 5; i++) page = await post(link, { ...CARD, form_id: formIdOf(page.rawBody), number: '4000 0000 0000 0002' });
    const blocked = page;
    const sixth = await post(link, { ...CARD, form_id: keptOpen, number: '4242 4242 4242 4242' });
    const later = await get(link);
    // Assess: five payments, all declined; the sixth card never tried; the page shows no form
    expect((await paymentsOfInvoice(merchantId, invoiceId)).map((p) => p.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    for (const shown of [blocked, later]) {
      expect(shown.status).toBe(200);
      expect(shown.rawBody).toContain('Too many cards were declined for this invoice');
      expect(shown.rawBody).toContain('Please contact');
      expect(shown.rawBody).not.toContain('<form');
    }
    expect(sixth.rawBody).not.toContain('<form');
    expect(await read.invoice(apiKey, invoiceId)).toMatchObject({ status: 'sent', paid_at: null });
  });

  it('five cards sent at once can take no more than the five tries', async () => {
    // Prepare: four declines, then six forms served
    const { merchantId, invoiceId, link } = await waitingForCustomer();
    midHour();
    let page = await get(link);
    for (let i = 0; i < 4; i++) page = await post(link, { ...CARD, form_id: formIdOf(page.rawBody), number: '4000 0000 0000 0002' });
    const forms = await Promise.all(Array.from({ length: 6 }, async () => formIdOf((await get(link)).rawBody)));
    // Act
    await Promise.all(forms.map((form_id) => post(link, { ...CARD, form_id, number: '4000 0000 0000 0002' })));
    // Assess
    expect(await paymentsOfInvoice(merchantId, invoiceId)).toHaveLength(5);
  });
});

describe("the payment page's form is taken only from the page itself, once", () => {
  it('a cross-site post (another Origin, or Sec-Fetch-Site cross-site) with a served form charges nothing: 403 as a page', async () => {
    // Prepare
    const { apiKey, merchantId, invoiceId, link } = await waitingForCustomer();
    const formId = formIdOf((await get(link)).rawBody);
    // Act
    const answers = [
      await post(link, { pay_with: 'saved', form_id: formId }, { Origin: 'https://evil.example' }),
      await post(link, { pay_with: 'saved', form_id: formId }, { Origin: 'http://localhost:3000.evil.example' }),
      await post(link, { pay_with: 'saved', form_id: formId }, { 'Sec-Fetch-Site': 'cross-site' }),
      await post(link, { pay_with: 'saved', form_id: formId }, { Origin: 'null', 'Sec-Fetch-Site': 'same-site' }),
      await post(link, { pay_with: 'saved', form_id: formId }, {}),
    ];
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.rawBody).toContain('<title>Payment page unavailable</title>');
      expect(answer.rawBody).toContain('Permission denied: this form is taken only from its own payment page');
    }
    expect(await paymentsOfInvoice(merchantId, invoiceId)).toEqual([]);
    expect(await read.invoice(apiKey, invoiceId)).toMatchObject({ status: 'sent', paid_at: null });
    // the form is still the shopper's to use from the page (the browser sent no Origin, but says same-origin)
    const paid = await post(link, { pay_with: 'saved', form_id: formId }, { 'Sec-Fetch-Site': 'same-origin' });
    expect(paid.status).toBe(303);
  });

  it('a form id the page never served changes nothing: the page again with a fresh form', async () => {
    // Prepare
    const { apiKey, merchantId, invoiceId, link } = await waitingForCustomer();
    const other = await waitingForCustomer();
    const otherPagesForm = formIdOf((await get(other.link)).rawBody);
    // Act: a made-up id, and a form another invoice's page served
    const answers = [
      await post(link, { pay_with: 'saved', form_id: `${Date.now()}.${randomUUID()}` }),
      await post(link, { pay_with: 'saved', form_id: otherPagesForm }),
    ];
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.rawBody).toContain('<p role="alert">This page had expired, so nothing was charged: please try again.</p>');
      expect(formIdOf(answer.rawBody)).not.toBe(otherPagesForm);
    }
    expect(await paymentsOfInvoice(merchantId, invoiceId)).toEqual([]);
    expect(await paymentsOfInvoice(other.merchantId, other.invoiceId)).toEqual([]);
    expect(await read.invoice(apiKey, invoiceId)).toMatchObject({ status: 'sent', paid_at: null });
  });

  it('a form sent again after its payment ends leads to that payment (declined: the same words), never a second charge', async () => {
    // Prepare
    const { merchantId, invoiceId, link } = await waitingForCustomer();
    const form = { ...CARD, form_id: formIdOf((await get(link)).rawBody), number: '4000 0000 0000 0002' };
    const first = await post(link, form);
    // Act: the same form again, then with a good card in it (a replay of a used form id)
    const again = await post(link, form);
    const replayed = await post(link, { ...form, number: '4242 4242 4242 4242' });
    // Assess
    expect(first.status).toBe(200);
    const [payment] = await paymentsOfInvoice(merchantId, invoiceId);
    for (const answer of [again, replayed]) {
      expect(answer.status).toBe(303);
      expect(location(answer)).toBe(`${link}&payment_id=${payment!.id}`);
    }
    expect((await get(location(again))).rawBody).toContain('<p role="alert">Your card was declined. Try another card.</p>');
    expect((await paymentsOfInvoice(merchantId, invoiceId)).map((p) => p.status)).toEqual(['failed']);
  });
});
