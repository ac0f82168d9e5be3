/**
 * Capacity of a payment link (issue 48): a shopper's visit (`GET /hosted/link/plink_…`: the link read and the page's
 * form made) and their payment (the form's `POST`: the link's place taken, the card charged, the payment captured and
 * counted on the link), through the handlers as API Gateway invokes them. Each measured as the others in capacity.ts.
 */
import { handler as linkPage } from '../functions/hosted/link.ts';
import { handler as linkSubmit } from '../functions/hosted/link-submit.ts';
import { handler as createLink } from '../functions/payment-links/create.ts';
import { apiEvent, invokeHttp, type HttpResult } from '../test/support/lambda.ts';
import { bearer } from '../test/support/merchant.ts';

const answered = (status: number) => (res: HttpResult) => {
  if (res.status !== status) throw new Error(`${res.status}: ${res.rawBody.slice(0, 300)}`);
  return res;
};
const formIdOf = (html: string) => /name="form_id" value="([^"]+)"/.exec(html)![1]!;

/** `runs`: how often `measure` runs an operation (its warm-up included). */
export async function linkFlows(apiKey: string, measure: (name: string, op: () => Promise<unknown>) => Promise<void>, runs = 4) {
  const made = answered(200)(
    await invokeHttp(
      createLink,
      apiEvent({
        method: 'POST',
        path: '/api/payment_links',
        headers: bearer(apiKey),
        body: { line_items: [{ name: 'T-shirt', amount: 2000, quantity: 2 }], currency: 'usd', tax_rate: 20 },
      }),
    ),
  );
  const path = `/hosted/link/${made.body.id as string}`;
  const visit = async () => answered(200)(await invokeHttp(linkPage, apiEvent({ path }))).rawBody;
  await measure('payment link visit (page and form)', visit);

  // Pages visited (each form pays once), outside what is measured; each shopper from an address of their own
  const forms = await Promise.all(Array.from({ length: runs }, async () => formIdOf(await visit())));
  let shopper = 0;
  await measure('payment link paid (form posted, captured)', async () => {
    const form = { form_id: forms.pop()!, number: '4242 4242 4242 4242', exp: '12 / 34', cvc: '123' };
    const event = apiEvent({
      method: 'POST',
      path,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://localhost:3000' },
      body: new URLSearchParams(form).toString(),
      sourceIp: `198.51.100.${(shopper += 1)}`,
    });
    return answered(303)(await invokeHttp(linkSubmit, event));
  });
}
