import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as handOff } from '../../functions/hosted/3ds-hand-off.ts';
import { handler as returned } from '../../functions/hosted/3ds-return.ts';
import { handler as sandboxAnswer } from '../../functions/hosted/3ds-sandbox-answer.ts';
import { handler as payPage } from '../../functions/hosted/pay.ts';
import { handler as paySubmit } from '../../functions/hosted/pay-submit.ts';
import { config } from '../../shared/config.ts';
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
 * The hosted payment link (DECISIONS "Subscription recovery"): a renewal the issuer wants authenticated waits for
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
const post = (path: string, form: Record<string, string>) =>
  invokeHttp(
    paySubmit,
    apiEvent({ method: 'POST', path, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }),
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
    expect(declined.rawBody).toContain('role="alert">Your card was declined (generic_decline). Nothing was charged');
    expect([one.status, two.status]).toEqual([303, 303]);
    expect(location(one)).toBe(location(two));
    // the customer's payments of the invoice (the renewal's own declined charge names it too, with its subscription)
    const ofInvoice = (await listPayments(testOwner(merchantId), {}, { limit: 100 })).data.filter(
      (p) => p.metadata.invoice_id === invoiceId && !p.metadata.subscription_id,
    );
    expect(ofInvoice.map((p) => p.status).sort()).toEqual(['captured', 'failed']);
    expect(await read.invoice(apiKey, invoiceId)).toMatchObject({ status: 'paid', payment_id: ofInvoice.find((p) => p.status === 'captured')!.id });
  });

  it('a forged, expired or missing signature answers 404; a bad form 400, as a page', async () => {
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
    expect(badForm.status).toBe(400);
    expect(badForm.rawBody).toContain('<title>Payment page unavailable</title>');
  });
});
