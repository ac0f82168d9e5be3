import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { config } from '../../shared/config.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { credentialsFor, merchantIn, type Mode, PROVIDERS, receivedBy } from '../support/connected-accounts.ts';
import type { Json } from '../support/lambda.ts';
import { freshCard } from '../support/payments.ts';
import { startTestGateway } from '../support/runtime.ts';

/**
 * A saved card over HTTP, as a merchant integrates it: the checkout page saves the card with the publishable key,
 * the merchant's server attaches the pm_ to its customer, charges it with its secret key and reads the payment back,
 * at its own connected account (a provider fake, through the real connector). No answer ever carries the card number
 * or the CVC.
 */
let gateway: Gateway;
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
  await fakes.close();
});

/** every answer's raw body */
const answers: string[] = [];

/** One request, as curl sends it. */
async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: JSON.parse(text) as Json, text };
}

describe.each(['test', 'live'] as Mode[])('a saved card over HTTP in %s mode', (mode) => {
  it.each(PROVIDERS)('%s account: publishable-key save, secret-key charge by pm_, GET, capture, and a second charge', async (provider) => {
    // Prepare: the merchant connects its account and makes a publishable key for its checkout page
    const { secretKey, customerId } = await merchantIn(mode);
    const connector = await call('POST', '/api/connectors', secretKey, { provider, credentials: credentialsFor(provider, mode) });
    expect(connector.status, connector.text).toBe(200);
    const publishable = await call('POST', '/api/api-keys', secretKey, { name: 'Checkout', type: 'publishable' });
    expect(publishable.body.key).toMatch(new RegExp(`^pk_${mode}_`));
    const number = freshCard();
    const answered = answers.length;

    // Act: the browser saves the card; the server attaches it to its customer, charges it, reads it back, captures,
    // and charges it again
    const saved = await call('POST', '/api/payment_methods', publishable.body.key, {
      type: 'card',
      card: { number, exp_month: 12, exp_year: 2034, cvc: '737' },
    });
    const pmId: string = saved.body.id;
    const attached = await call('POST', `/api/payment_methods/${pmId}/attach`, secretKey, { customer_id: customerId });
    const paid = await call('POST', '/api/payments/create', secretKey, { amount: 3100, currency: 'eur', routing: provider, payment_method: pmId });
    const read = await call('GET', `/api/payments/${paid.body.id}`, secretKey);
    const captured = await call('POST', `/api/payments/${paid.body.id}/capture`, secretKey, {});
    const again = await call('POST', '/api/payments/create', secretKey, { amount: 1200, currency: 'eur', routing: provider, payment_method: pmId });
    const shownCard = await call('GET', `/api/payment_methods/${pmId}`, secretKey);

    // Assess
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ id: expect.stringMatching(/^pm_/), customer_id: null, livemode: mode === 'live' });
    expect(attached.body).toEqual({ ...saved.body, customer_id: customerId });
    expect(paid.status, paid.text).toBe(200);
    const expected = { status: 'succeeded', provider, connector_id: connector.body.id, customer_id: customerId, livemode: mode === 'live' };
    expect(paid.body).toMatchObject(expected);
    expect(read.body).toEqual(paid.body);
    expect(read.body.payment_method).toEqual({
      id: pmId,
      type: 'card',
      card: { brand: 'visa', last4: number.slice(-4), exp_month: 12, exp_year: 2034 },
    });
    expect(captured.body).toMatchObject({ status: 'captured', amount_captured: 3100 });
    expect(again.body).toMatchObject({ ...expected, amount: 1200 });
    expect(receivedBy(fakes, provider, again.body.attempts[0].id).numberLast4).toBeUndefined();
    expect(shownCard.body).toEqual(attached.body);
    for (const text of answers.slice(answered)) {
      expect(text).not.toContain(number);
      expect(text).not.toMatch(/"(cvc|token|tokens)"/);
    }
  });
});
