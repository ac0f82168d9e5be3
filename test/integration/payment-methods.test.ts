import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as updateCustomer } from '../../functions/customers/update.ts';
import { handler as getCustomer } from '../../functions/customers/get.ts';
import { handler as listKeys } from '../../functions/api-keys/list.ts';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { clock } from '../../shared/model/clock.ts';
import { createCustomer } from '../../shared/domain/customers.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { rateLimitKeys } from '../../shared/store/keys.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testActor } from '../support/merchant.ts';
import { freshCard } from '../support/payments.ts';
import { cardBody, paymentMethods, publishableKeyOf } from '../support/payment-methods.ts';

/** Every item of the main table that mentions `text` anywhere (its JSON). */
async function itemsHolding(...texts: string[]): Promise<unknown[]> {
  // one pass over the table in parallel segments (it holds every test's items by now)
  const segment = async (Segment: number, TotalSegments: number) => {
    const found: unknown[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: start, Segment, TotalSegments }));
      found.push(...(page.Items ?? []).filter((item) => texts.some((text) => JSON.stringify(item).includes(text))));
      start = page.LastEvaluatedKey;
    } while (start);
    return found;
  };
  return (await Promise.all([0, 1, 2, 3].map((i) => segment(i, 4)))).flat();
}

describe('publishable keys', () => {
  it('are created on request, start pk_test_, and are listed in full', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const key = await publishableKeyOf(apiKey);
    const listed = await invokeHttp(listKeys, apiEvent({ method: 'GET', path: '/api/api-keys', headers: bearer(apiKey) }));
    // Assess
    expect(key).toMatch(/^pk_test_[0-9A-Za-z]{43}$/);
    expect(listed.body.data).toContainEqual(expect.objectContaining({ type: 'publishable', key, prefix: 'pk_test_' }));
    expect(listed.body.data.find((k: { type: string }) => k.type === 'secret')).not.toHaveProperty('key');
  });

  it('may create payment methods and nothing else: 401 naming why on reading one', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const publishable = await publishableKeyOf(apiKey);
    const created = await paymentMethods.create(publishable, cardBody(freshCard()));
    // Act
    const read = await paymentMethods.get(publishable, created.body.id);
    // Assess
    expect(created.status, created.rawBody).toBe(200);
    expect(read.status).toBe(401);
    expect(read.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(read.body.error.message).toBe('Invalid API key: a publishable key can only create payment methods');
  });

  it("cannot name a customer (400 parameter_invalid customer_id), nor reach a customer's payment method by saving its card again", async () => {
    // Prepare: the merchant's server saved a customer's card, with the customer's name and e-mail
    const { apiKey, customerId } = await newMerchant();
    const publishable = await publishableKeyOf(apiKey);
    const number = freshCard();
    const billing = { name: 'Jane Customer', email: 'jane.customer@example.com' };
    const customers = await paymentMethods.create(apiKey, cardBody(number, { customer_id: customerId, billing_details: billing }));
    const elsewhere = { ...cardBody(number), card: { number, exp_month: 1, exp_year: 2035, cvc: '123' } };

    // Act: anyone with the page's key names the customer, or saves the customer's card again without naming it
    const named = await paymentMethods.create(publishable, { ...elsewhere, customer_id: customerId });
    const unnamed = await paymentMethods.create(publishable, elsewhere);

    // Assess: refused; a payment method of nobody's, which tells nothing of the customer's; the customer's unchanged
    expect(customers.status, customers.rawBody).toBe(200);
    expect(named.status).toBe(400);
    expect(named.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'customer_id' });
    expect(named.body.error.message).toMatch(/a publishable key cannot name a customer/);
    expect(unnamed.status, unnamed.rawBody).toBe(200);
    expect(unnamed.body).toMatchObject({ customer_id: null, billing_details: null, card: { exp_month: 1, exp_year: 2035 } });
    expect(unnamed.body.id).not.toBe(customers.body.id);
    expect((await paymentMethods.get(apiKey, customers.body.id)).body).toEqual(customers.body);
    const listed = await paymentMethods.list(apiKey, { customer_id: customerId });
    expect(listed.body.data.map((pm: { id: string }) => pm.id)).toEqual([customers.body.id]);
  });

  it('limits payment-method creates to 30 a minute per key and client IP; a secret key is not limited by it', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const publishable = await publishableKeyOf(apiKey);
    const save = (key: string, ip: string) => paymentMethods.create(key, cardBody(freshCard()), {}, ip);
    // Act, with the clock inside one window (15 s from its start)
    const realNow = clock.now;
    const windowStart = Math.floor(realNow() / 60_000) * 60_000;
    clock.now = () => windowStart + 15_000;
    const [first, over, otherIp, server] = await (async () => {
      const within = await Promise.all(Array.from({ length: 30 }, () => save(publishable, '198.51.100.7')));
      return [within, await save(publishable, '198.51.100.7'), await save(publishable, '198.51.100.8'), await save(apiKey, '198.51.100.7')] as const;
    })().finally(() => {
      clock.now = realNow;
    });
    // Assess
    expect(first.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(over.status).toBe(429);
    expect(over.body.error.type).toBe('rate_limit_error');
    expect(otherIp.status).toBe(200);
    expect(server.status).toBe(200);
  });
});

describe('publishable keys, over many client IPs', () => {
  it('limit payment-method creates to 600 a minute per key whatever the IPs: 429 with the limit, its headers and Retry-After', async () => {
    // Prepare: a key that has saved 599 cards this minute, from as many IPs (its window, counted as the service counts it)
    const { apiKey } = await newMerchant();
    const made = await invokeHttp(
      createKey,
      apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(apiKey), body: { name: 'Checkout page', type: 'publishable' } }),
    );
    const realNow = clock.now;
    const windowStart = Math.floor(realNow() / 60_000) * 60_000;
    clock.now = () => windowStart + 15_000;
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...rateLimitKeys.window('payment-methods-create-per-key', made.body.id, windowStart), count: 599 },
      }),
    );
    const save = (key: string, ip: string) => paymentMethods.create(key, cardBody(freshCard()), {}, ip);

    // Act: the 600th from one more IP, the 601st from yet another, then the merchant's server
    const [last, over, server] = await (async () =>
      [await save(made.body.key, '203.0.113.1'), await save(made.body.key, '203.0.113.2'), await save(apiKey, '203.0.113.2')] as const)().finally(
      () => {
        clock.now = realNow;
      },
    );

    // Assess
    expect(last.status, last.rawBody).toBe(200);
    expect(last.headers).toMatchObject({ 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0' }); // the window with the fewest left
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(over.body.error.message).toMatch(/600/);
    expect(over.headers).toMatchObject({ 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0', 'retry-after': '45' });
    expect(server.status).toBe(200);
  });
});

describe('payment methods', () => {
  it('save a card: brand, last4, expiry and fingerprint shown, the number in no answer and no main-table item', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const publishable = await publishableKeyOf(apiKey);
    const number = freshCard();
    // Act
    const created = await paymentMethods.create(publishable, cardBody(number, { billing_details: { name: 'Jane Doe', address: { country: 'de' } } }));
    const read = await paymentMethods.get(apiKey, created.body.id);
    // Assess
    expect(created.status, created.rawBody).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^pm_[0-9a-z]{26}$/),
      object: 'payment_method',
      type: 'card',
      card: { brand: 'visa', last4: number.slice(-4), exp_month: 12, exp_year: 2034, fingerprint: expect.any(String) },
      billing_details: { name: 'Jane Doe', address: { country: 'DE' } },
      customer_id: null,
      livemode: false,
    });
    expect(read.body).toEqual(created.body);
    expect(created.rawBody).not.toContain(number);
    expect(await itemsHolding(number, number.slice(0, 12))).toEqual([]);
  });

  it('fingerprint: the same for one number within a merchant, another across merchants', async () => {
    // Prepare
    const [one, other] = await Promise.all([newMerchant(), newMerchant()]);
    const number = freshCard();
    // Act
    const [a, b, c] = await Promise.all([
      paymentMethods.create(one.apiKey, cardBody(number)),
      paymentMethods.create(one.apiKey, cardBody(number)),
      paymentMethods.create(other.apiKey, cardBody(number)),
    ]);
    // Assess
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.card.fingerprint).toBe(b.body.card.fingerprint);
    expect(c.body.card.fingerprint).not.toBe(a.body.card.fingerprint);
  });

  it('the same number saved again for the same customer answers the same pm_ with its new expiry', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const number = freshCard();
    const first = await paymentMethods.create(apiKey, cardBody(number, { customer_id: customerId }));
    // Act
    const again = await paymentMethods.create(apiKey, {
      ...cardBody(number, { customer_id: customerId }),
      card: { number, exp_month: 3, exp_year: 2036 },
    });
    // Assess
    expect(again.status, again.rawBody).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.card).toMatchObject({ exp_month: 3, exp_year: 2036 });
    const listed = await paymentMethods.list(apiKey, { customer_id: customerId });
    expect(listed.body.data.map((pm: { id: string }) => pm.id)).toEqual([first.body.id]);
  });

  it("list a customer's cards newest first; attach, detach and the customer's default follow", async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const saved = await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customerId }));
    const loose = await paymentMethods.create(apiKey, cardBody(freshCard()));
    const customer = () => invokeHttp(getCustomer, apiEvent({ method: 'GET', path: `/api/customers/${customerId}`, headers: bearer(apiKey) }));
    expect((await customer()).body.default_payment_method).toBe(saved.body.id);

    // Act: attach the loose one and make it the default
    const attached = await paymentMethods.attach(apiKey, loose.body.id, customerId);
    const chosen = await invokeHttp(
      updateCustomer,
      apiEvent({ method: 'PUT', path: `/api/customers/${customerId}`, headers: bearer(apiKey), body: { default_payment_method: loose.body.id } }),
    );
    // Assess
    expect(attached.body.customer_id).toBe(customerId);
    expect(chosen.body.default_payment_method).toBe(loose.body.id);
    expect((await paymentMethods.list(apiKey, { customer_id: customerId })).body.data.map((pm: { id: string }) => pm.id)).toEqual([
      loose.body.id,
      saved.body.id,
    ]);

    // Act: detach the default
    const detached = await paymentMethods.detach(apiKey, loose.body.id);
    // Assess: still readable, no longer listed, no longer the default
    expect(detached.body.customer_id).toBeNull();
    expect((await paymentMethods.get(apiKey, loose.body.id)).status).toBe(200);
    expect((await paymentMethods.list(apiKey, { customer_id: customerId })).body.data.map((pm: { id: string }) => pm.id)).toEqual([saved.body.id]);
    expect((await customer()).body.default_payment_method).toBeNull();
  });

  it('one attached to another customer must be detached first: 400 invalid_state', async () => {
    // Prepare
    const { apiKey, customerId, merchantId } = await newMerchant();
    const second = await createCustomer(testActor(merchantId), { email: 'second@example.com' });
    const pm = await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customerId }));
    // Act
    const res = await paymentMethods.attach(apiKey, pm.body.id, second.id);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_state' });
    expect(res.body.error.message).toMatch(/detach it first/);
  });

  it("another merchant's payment method is 404, its customer resource_missing; bad cards are 400 naming the field", async () => {
    // Prepare
    const [mine, theirs] = await Promise.all([newMerchant(), newMerchant()]);
    const pm = await paymentMethods.create(theirs.apiKey, cardBody(freshCard()));
    // Act
    const read = await paymentMethods.get(mine.apiKey, pm.body.id);
    const attach = await paymentMethods.attach(theirs.apiKey, pm.body.id, mine.customerId);
    const forCustomer = await paymentMethods.create(mine.apiKey, cardBody(freshCard(), { customer_id: theirs.customerId }));
    const list = await paymentMethods.list(mine.apiKey, { customer_id: theirs.customerId });
    const luhn = await paymentMethods.create(mine.apiKey, cardBody('4242424242424241'));
    const expired = await paymentMethods.create(mine.apiKey, {
      ...cardBody(freshCard()),
      card: { number: freshCard(), exp_month: 1, exp_year: 2020 },
    });
    // Assess
    expect(read.status).toBe(404);
    expect(read.body.error.message).toBe(`Resource not found: no payment method ${pm.body.id} in test mode`);
    for (const res of [attach, forCustomer, list]) expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'customer_id' });
    expect(luhn.body.error).toMatchObject({ code: 'parameter_invalid', param: 'card.number' });
    expect(expired.body.error).toMatchObject({ code: 'parameter_invalid', param: 'card.exp_year' });
  });
});
