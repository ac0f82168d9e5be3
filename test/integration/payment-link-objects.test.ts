import { describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/payment-links/create.ts';
import { handler as get } from '../../functions/payment-links/get.ts';
import { handler as list } from '../../functions/payment-links/list.ts';
import { handler as update } from '../../functions/payment-links/update.ts';
import { handler as updateSettings } from '../../functions/settings/update.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';

const TSHIRTS = { line_items: [{ name: 'T-shirt', amount: 2000, quantity: 2 }], currency: 'eur', tax_rate: 20 };

const links = {
  create: (key: string, body: unknown, headers: Record<string, string> = {}) =>
    invokeHttp(create, apiEvent({ method: 'POST', path: '/api/payment_links', headers: { ...bearer(key), ...headers }, body })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ path: `/api/payment_links/${id}`, headers: bearer(key) })),
  update: (key: string, id: string, body: unknown) =>
    invokeHttp(update, apiEvent({ method: 'PUT', path: `/api/payment_links/${id}`, headers: bearer(key), body })),
  list: (key: string, query = '') => invokeHttp(list, apiEvent({ path: `/api/payment_links${query}`, headers: bearer(key) })),
};

describe('payment links', () => {
  it('makes a link with its totals computed as an invoice does, active, at a page of this service', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await links.create(apiKey, {
      line_items: [
        { name: 'T-shirt', amount: 1999, quantity: 2 },
        { name: 'Sticker', amount: 0, quantity: 1 },
      ],
      currency: 'eur',
      tax_rate: 7.25,
      limit: 3,
      metadata: { campaign: 'summer' },
    });
    // Assess: 3998 + 7.25 % = 289.855 → 290 (half up)
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^plink_[0-9a-z]{26}$/),
      object: 'payment_link',
      url: expect.stringMatching(/^http:\/\/localhost:3000\/hosted\/link\/plink_[0-9a-z]{26}$/),
      active: true,
      line_items: [
        { name: 'T-shirt', amount: 1999, quantity: 2 },
        { name: 'Sticker', amount: 0, quantity: 1 },
      ],
      subtotal: 3998,
      tax_rate: 7.25,
      tax: 290,
      total: 4288,
      currency: 'EUR',
      limit: 3,
      paid_count: 0,
      after_completion: null,
      metadata: { campaign: 'summer' },
      livemode: false,
      created_at: expect.any(String),
    });
    expect(res.body.url.endsWith(res.body.id)).toBe(true);
    expect((await links.get(apiKey, res.body.id)).body).toEqual(res.body);
  });

  it('answers a retried create (same Idempotency-Key) with the first link', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const first = await links.create(apiKey, TSHIRTS, { 'Idempotency-Key': 'link-1' });
    const again = await links.create(apiKey, TSHIRTS, { 'Idempotency-Key': 'link-1' });
    // Assess
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await links.list(apiKey)).body.data).toHaveLength(1);
  });

  it.each([
    ['no line item', { ...TSHIRTS, line_items: [] }, 'line_items'],
    ['a negative amount', { ...TSHIRTS, line_items: [{ name: 'T-shirt', amount: -1, quantity: 1 }] }, 'line_items.0.amount'],
    ['a total of 0', { ...TSHIRTS, line_items: [{ name: 'Free', amount: 0, quantity: 1 }] }, 'line_items'],
    ['a tax rate with 5 decimals', { ...TSHIRTS, tax_rate: 7.12345 }, 'tax_rate'],
    ['a limit of 0', { ...TSHIRTS, limit: 0 }, 'limit'],
    ['an unknown currency', { ...TSHIRTS, currency: 'xyz' }, 'currency'],
    ['an empty confirmation message', { ...TSHIRTS, after_completion: { type: 'hosted_confirmation', message: ' ' } }, 'after_completion.message'],
  ])('refuses %s, naming the field', async (_what, body, param) => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await links.create(apiKey, body);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param });
    expect((await links.list(apiKey)).body.data).toEqual([]);
  });

  it('redirects after paying only to a checkout origin of the mode', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    await invokeHttp(
      updateSettings,
      apiEvent({ method: 'PUT', path: '/api/settings', headers: bearer(apiKey), body: { checkout_origins: ['https://shop.example'] } }),
    );
    // Act
    const elsewhere = await links.create(apiKey, { ...TSHIRTS, after_completion: { type: 'redirect', url: 'https://evil.example/thanks' } });
    const listed = await links.create(apiKey, { ...TSHIRTS, after_completion: { type: 'redirect', url: 'https://shop.example/thanks' } });
    const changedAway = await links.update(apiKey, listed.body.id, { after_completion: { type: 'redirect', url: 'https://evil.example/' } });
    // Assess
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatchObject({ code: 'url_not_allowed', param: 'after_completion.url' });
    expect(elsewhere.body.error.message).toMatch(/^Invalid request body: after_completion.url must be an https URL on one of your checkout_origins/);
    expect(listed.body.after_completion).toEqual({ type: 'redirect', url: 'https://shop.example/thanks' });
    expect(changedAway.status).toBe(400);
    expect((await links.get(apiKey, listed.body.id)).body.after_completion).toEqual({ type: 'redirect', url: 'https://shop.example/thanks' });
  });

  it('is switched off and on, its metadata and after_completion replaced', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const { body: link } = await links.create(apiKey, TSHIRTS);
    // Act
    const off = await links.update(apiKey, link.id, { active: false, metadata: { campaign: 'over' } });
    const offAgain = await links.update(apiKey, link.id, { active: false });
    const on = await links.update(apiKey, link.id, { active: true, after_completion: { type: 'hosted_confirmation', message: 'Thanks!' } });
    // Assess
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ active: false, metadata: { campaign: 'over' }, total: 4800 });
    expect(offAgain.body.active).toBe(false);
    expect(on.body).toMatchObject({
      active: true,
      metadata: { campaign: 'over' },
      after_completion: { type: 'hosted_confirmation', message: 'Thanks!' },
    });
  });

  it('lists the links newest first, a page at a time, filtered by active', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await links.create(apiKey, TSHIRTS)).body.id);
    await links.update(apiKey, made[0]!, { active: false });
    // Act
    const firstPage = await links.list(apiKey, '?limit=2');
    const next = await links.list(apiKey, `?limit=2&starting_after=${firstPage.body.data[1].id}`);
    const inactive = await links.list(apiKey, '?active=false');
    const typo = await links.list(apiKey, '?activ=false');
    // Assess
    expect(firstPage.body.data.map((l: { id: string }) => l.id)).toEqual([made[2], made[1]]);
    expect(firstPage.body.has_more).toBe(true);
    expect(next.body).toMatchObject({ data: [{ id: made[0] }], has_more: false });
    expect(inactive.body.data.map((l: { id: string }) => l.id)).toEqual([made[0]]);
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: 'parameter_unknown', param: 'activ' });
  });

  it("answers 404 for another merchant's link and a malformed id", async () => {
    // Prepare
    const [mine, theirs] = await Promise.all([newMerchant(), newMerchant()]);
    const { body: link } = await links.create(theirs.apiKey, TSHIRTS);
    // Act
    const other = await links.get(mine.apiKey, link.id);
    const changed = await links.update(mine.apiKey, link.id, { active: false });
    const malformed = await links.get(mine.apiKey, 'plink_nope');
    // Assess
    expect(other.status).toBe(404);
    expect(other.body.error.message).toMatch(/^Resource not found: no payment link plink_/);
    expect(changed.status).toBe(404);
    expect(malformed.status).toBe(404);
    expect((await links.get(theirs.apiKey, link.id)).body.active).toBe(true);
  });
});
