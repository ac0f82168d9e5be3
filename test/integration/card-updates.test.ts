import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as updateCard } from '../../functions/test-helpers/payment-method-update.ts';
import { config } from '../../shared/config.ts';
import { listEvents } from '../../shared/store/events.ts';
import type { Owner } from '../../shared/store/keys.ts';
import { type ProviderFakes, startProviderFakes } from '../fakes/index.ts';
import { connect, merchantIn, receivedBy } from '../support/connected-accounts.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer } from '../support/merchant.ts';
import { cardBody, paymentMethods } from '../support/payment-methods.ts';
import { freshCard, payments } from '../support/payments.ts';

/**
 * The card networks' updater, played in test mode by `POST /api/test_helpers/payment_methods/:id/update`: the saved
 * card's new expiry or number is what the next charge sends, at an account holding no token for it (the vault's card).
 */
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());

const update = (key: string, id: string, body: unknown) =>
  invokeHttp(updateCard, apiEvent({ method: 'POST', path: `/api/test_helpers/payment_methods/${id}/update`, headers: bearer(key), body }));
const updatesOf = async (owner: Owner) => (await listEvents(owner, { event: 'payment_method.updated' }, { limit: 10 })).data;

/** A merchant with its Stripe account connected and a card saved for its customer. */
async function savedCard(number = freshCard()) {
  const { secretKey, customerId, owner } = await merchantIn('test');
  await connect(secretKey, 'stripe', 'test');
  const saved = await paymentMethods.create(secretKey, cardBody(number, { customer_id: customerId }));
  expect(saved.status, saved.rawBody).toBe(200);
  return { secretKey, owner, pm: saved.body as { id: string }, number };
}

describe('POST /api/test_helpers/payment_methods/:id/update', () => {
  it('a new expiry: the payment method shows it, payment_method.updated is sent, the next charge sends it', async () => {
    // Prepare
    const { secretKey, owner, pm, number } = await savedCard();
    // Act
    const res = await update(secretKey, pm.id, { exp_month: 3, exp_year: 2036 });
    const charged = await payments.create(secretKey, { amount: 1500, currency: 'eur', routing: 'stripe', payment_method: pm.id });
    // Assess
    expect(res.status, res.rawBody).toBe(200);
    expect(res.body).toMatchObject({ id: pm.id, card: { last4: number.slice(-4), exp_month: 3, exp_year: 2036 } });
    expect((await paymentMethods.get(secretKey, pm.id)).body.card).toMatchObject({ exp_month: 3, exp_year: 2036 });
    expect(await updatesOf(owner)).toMatchObject([{ data: { object: { id: pm.id, card: { exp_month: 3 } } } }]);
    expect(charged.body).toMatchObject({ status: 'succeeded', payment_method: { id: pm.id, card: { exp_month: 3, exp_year: 2036 } } });
    expect(receivedBy(fakes, 'stripe', charged.body.attempts[0].id).body.payment_method_data.card).toMatchObject({
      exp_month: '3',
      exp_year: '2036',
    });
  });

  it('a replacement number: the new last four digits, and the next charge sends the new number; the same update again sends nothing', async () => {
    // Prepare
    const { secretKey, owner, pm } = await savedCard();
    const replacement = freshCard();
    // Act
    const first = await update(secretKey, pm.id, { exp_month: 5, exp_year: 2037, number: replacement });
    const again = await update(secretKey, pm.id, { exp_month: 5, exp_year: 2037, number: replacement });
    const charged = await payments.create(secretKey, { amount: 1500, currency: 'eur', routing: 'stripe', payment_method: pm.id });
    // Assess
    expect(first.body).toMatchObject({ card: { last4: replacement.slice(-4), exp_month: 5, exp_year: 2037 } });
    expect(again.body).toEqual(first.body);
    expect(JSON.stringify(first.body)).not.toContain(replacement);
    expect(await updatesOf(owner)).toHaveLength(1);
    expect(receivedBy(fakes, 'stripe', charged.body.attempts[0].id).numberLast4).toBe(replacement.slice(-4));
  });

  it('refuses bad input with 400 naming the field, a live card, and an unknown payment method', async () => {
    // Prepare
    const { secretKey, pm } = await savedCard();
    const live = await merchantIn('live');
    // Act
    const expired = await update(secretKey, pm.id, { exp_month: 1, exp_year: 2020 });
    const badNumber = await update(secretKey, pm.id, { exp_month: 1, exp_year: 2036, number: '4242424242424241' });
    const unknown = await update(secretKey, 'pm_00000000000000000000000000', { exp_month: 1, exp_year: 2036 });
    const inLive = await update(live.secretKey, pm.id, { exp_month: 1, exp_year: 2036 });
    // Assess
    expect(expired.status).toBe(400);
    expect(expired.body.error).toMatchObject({ code: 'parameter_invalid', param: 'exp_year' });
    expect(badNumber.status).toBe(400);
    expect(badNumber.body.error).toMatchObject({ param: 'number' });
    expect(unknown.status).toBe(404);
    expect(inLive.status).toBe(400);
    expect(inLive.body.error).toMatchObject({ code: 'livemode_not_allowed' });
  });
});
