/**
 * Capacity of the flows of 3-D Secure, card updates, the hosted payment link and recovery analytics (issues 37, 38):
 * each measured as the others in capacity.ts (a warm-up run, then the run with the median WCU of three).
 */
import { handler as recovery } from '../functions/analytics/recovery.ts';
import { handler as updateSettings } from '../functions/settings/update.ts';
import { handler as payPage } from '../functions/hosted/pay.ts';
import { handler as paySubmit } from '../functions/hosted/pay-submit.ts';
import { handler as createInvoice } from '../functions/invoices/create.ts';
import { handler as updateCard } from '../functions/test-helpers/payment-method-update.ts';
import { signedPayUrl } from '../shared/domain/signed-links.ts';
import { apiEvent, invokeHttp, type HttpResult } from '../test/support/lambda.ts';
import { bearer } from '../test/support/merchant.ts';
import { cardBody, paymentMethods } from '../test/support/payment-methods.ts';
import { freshCard, payments } from '../test/support/payments.ts';
import { allowShop, sandboxChallenge, shopperReturns } from '../test/support/three-d-secure.ts';

const ok = (res: HttpResult, status = 200) => {
  if (res.status !== status) throw new Error(`${res.status}: ${res.rawBody.slice(0, 300)}`);
  return res;
};

/** The operations, in the order they run; `measure` runs one as capacity.ts's `steady` does. */
export async function laterFlows(apiKey: string, customerId: string, measure: (name: string, op: () => Promise<unknown>) => Promise<void>) {
  const runs = 4;
  // 3-D Secure at the sandbox: a create the issuer challenges, and the shopper's return once they passed (on the
  // sandbox's challenge page, not measured)
  await allowShop(apiKey);
  const challenged = () =>
    payments.create(apiKey, {
      amount: 2500,
      currency: 'eur',
      routing: 'stripe',
      return_url: 'https://shop.example/done',
      payment_method: { type: 'card', card: { number: '4000000000003220', exp_month: 12, exp_year: 2034, cvc: '123' } },
    });
  const waiting: { id: string; nextAction: string }[] = [];
  await measure('payment create, 3-D Secure challenge (requires_action)', async () => {
    const created = ok(await challenged()).body;
    waiting.push({ id: created.id, nextAction: created.next_action.redirect_to_url.url });
  });
  const passed = await Promise.all(waiting.map(async ({ id, nextAction }) => ({ id, back: await sandboxChallenge(nextAction) })));
  await measure('3-D Secure return (challenge passed)', async () => ok(await shopperReturns(passed.pop()!.back), 303));
  for (const { id } of passed.splice(0)) await payments.void(apiKey, id);

  // The card networks' updater on a saved card (a new expiry each time)
  const pm = ok(await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customerId }))).body.id as string;
  let month = 1;
  const update = () =>
    invokeHttp(
      updateCard,
      apiEvent({
        method: 'POST',
        path: `/api/test_helpers/payment_methods/${pm}/update`,
        headers: bearer(apiKey),
        body: { exp_month: month++, exp_year: 2035 },
      }),
    );
  await measure('card update (test helper, a new expiry)', async () => ok(await update()));

  // The hosted payment link: the customer pays an open invoice with a new card (the form as a browser posts it)
  const invoices = await Promise.all(
    Array.from(
      { length: runs },
      async () =>
        ok(
          await invokeHttp(
            createInvoice,
            apiEvent({
              method: 'POST',
              path: '/api/invoices',
              headers: bearer(apiKey),
              body: { customer_id: customerId, items: [{ name: 'Pro', amount: 2900, quantity: 1 }], currency: 'eur', due_date: '2030-01-31' },
            }),
          ),
        ).body.id as string,
    ),
  );
  // The shopper opens each page first (it serves the form id a post must carry), outside what is measured.
  const pages = await Promise.all(
    invoices.map(async (invoiceId) => {
      const link = new URL(await signedPayUrl('http://localhost:3000', invoiceId));
      const page = ok(await invokeHttp(payPage, apiEvent({ path: `${link.pathname}${link.search}` })));
      return { link, formId: /name="form_id" value="([^"]+)"/.exec(page.rawBody)![1]! };
    }),
  );
  const pay = ({ link, formId }: (typeof pages)[number]) => {
    const form = new URLSearchParams({ pay_with: 'card', form_id: formId, number: '4242 4242 4242 4242', exp: '12 / 34', cvc: '123' });
    // the browser's post from the page itself
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' };
    return invokeHttp(paySubmit, apiEvent({ method: 'POST', path: `${link.pathname}${link.search}`, headers, body: form.toString() }));
  };
  await measure('hosted payment link: an invoice paid with a new card', async () => ok(await pay(pages.pop()!), 303));

  await measure('recovery analytics (30d)', async () =>
    ok(await invokeHttp(recovery, apiEvent({ path: '/api/analytics/recovery', headers: bearer(apiKey), query: { period: '30d' } }))),
  );

  // An audited write: a key's settings change, its entry in the same transaction
  let n = 0;
  const origins = () => ({ checkout_origins: [`https://shop-${n++}.example`] });
  await measure('audited write: settings update by a key', async () =>
    ok(await invokeHttp(updateSettings, apiEvent({ method: 'PUT', path: '/api/settings', headers: bearer(apiKey), body: origins() }))),
  );
}
