import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as page } from '../../functions/hosted/link.ts';
import { handler as submit } from '../../functions/hosted/link-submit.ts';
import { handler as create } from '../../functions/payment-links/create.ts';
import { handler as get } from '../../functions/payment-links/get.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';

/**
 * A payment link's money (docs/api.md "Payment links"): a form sent twice pays and counts once; two shoppers racing
 * for the last place make one payment; a typo charges nothing and keeps no card number. Through the handlers.
 */
const anyAddress = () => `198.51.${randomInt(256)}.${randomInt(1, 255)}`;
const visit = (id: string) => invokeHttp(page, apiEvent({ path: `/hosted/link/${id}` }));
const post = (id: string, form: Record<string, string>) =>
  invokeHttp(
    submit,
    apiEvent({
      method: 'POST',
      path: `/hosted/link/${id}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://localhost:3000' },
      body: new URLSearchParams(form).toString(),
      sourceIp: anyAddress(),
    }),
  );
const formIdOf = (html: string) => /name="form_id" value="([^"]+)"/.exec(html)![1]!;
const card = (formId: string, number = '4242 4242 4242 4242') => ({ form_id: formId, number, exp: '12 / 34', cvc: '123' });

async function linkOf(body: Record<string, unknown> = {}) {
  const { apiKey, merchantId } = await newMerchant();
  const made = await invokeHttp(
    create,
    apiEvent({
      method: 'POST',
      path: '/api/payment_links',
      headers: bearer(apiKey),
      body: { line_items: [{ name: 'T-shirt', amount: 2000, quantity: 2 }], currency: 'eur', tax_rate: 20, ...body },
    }),
  );
  expect(made.status, made.rawBody).toBe(200);
  const read = async () => (await invokeHttp(get, apiEvent({ path: `/api/payment_links/${made.body.id}`, headers: bearer(apiKey) }))).body;
  const linkPayments = async () =>
    (await listPayments(testOwner(merchantId), {}, { limit: 100 })).data.filter((p) => p.payment_link_id === made.body.id);
  return { id: made.body.id as string, read, linkPayments };
}

describe("a payment link's money", () => {
  it('pays and counts once when the same form is sent twice, at once and again later', async () => {
    // Prepare
    const link = await linkOf();
    const formId = formIdOf((await visit(link.id)).rawBody);
    // Act
    const [first, second] = await Promise.all([post(link.id, card(formId)), post(link.id, card(formId))]);
    const third = await post(link.id, card(formId));
    // Assess: every answer leads to the one payment's receipt
    for (const res of [first, second, third]) {
      expect(res.status, res.rawBody).toBe(303);
      expect(res.headers.location).toMatch(/\/hosted\/link\/plink_[0-9a-z]{26}\?payment_id=pay_[0-9a-z]{26}$/);
    }
    expect(new Set([first, second, third].map((r) => r.headers.location)).size).toBe(1);
    const receipt = await invokeHttp(
      page,
      apiEvent({ path: new URL(String(first.headers.location)).pathname + new URL(String(first.headers.location)).search }),
    );
    expect(receipt.rawBody).toContain('Payment received');
    const made = await link.linkPayments();
    expect(made.map((p) => ({ status: p.status, amount: p.amount }))).toEqual([{ status: 'captured', amount: 4800 }]);
    expect((await link.read()).paid_count).toBe(1);
  });

  it('takes one payment when two shoppers race for the last place; the other reads it is sold out', async () => {
    // Prepare
    const link = await linkOf({ limit: 1 });
    const [a, b] = await Promise.all([visit(link.id), visit(link.id)]);
    // Act
    const answers = await Promise.all([post(link.id, card(formIdOf(a.rawBody))), post(link.id, card(formIdOf(b.rawBody), '5555 5555 5555 4444'))]);
    // Assess
    expect(answers.map((r) => r.status).sort()).toEqual([200, 303]);
    expect(answers.find((r) => r.status === 200)!.rawBody).toContain('This payment link is sold out');
    expect(await link.linkPayments()).toHaveLength(1);
    expect((await link.read()).paid_count).toBe(1);
    expect((await visit(link.id)).rawBody).toContain('sold out');
  });

  it('shows a typo next to its field, charges nothing, and never sends the card number back', async () => {
    // Prepare
    const link = await linkOf();
    const formId = formIdOf((await visit(link.id)).rawBody);
    // Act
    const res = await post(link.id, { ...card(formId, '4242 4242 4242 4241'), exp: '13 / 34', email: 'shopper@example.com' });
    // Assess
    expect(res.status).toBe(200);
    expect(res.rawBody).toContain('<p class="field-error" id="number-error" role="alert">This card number has a typo: check the digits.</p>');
    expect(res.rawBody).toContain('<p class="field-error" id="exp-error" role="alert">Enter the expiry as MM / YY.</p>');
    expect(res.rawBody).toContain('value="shopper@example.com"');
    expect(res.rawBody).not.toContain('4241');
    expect(await link.linkPayments()).toEqual([]);
  });
});
