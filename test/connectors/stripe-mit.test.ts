import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { stripeProvider } from '../../shared/providers/stripe/index.ts';
import type { AuthorizeRequest, AuthorizeResult, Connector } from '../../shared/providers/types.ts';
import { STRIPE_FAKE_SECRET_KEY, type StripeFake, startStripeFake } from '../../infra/local/fakes/stripe/server.ts';

// Merchant-initiated charges of a raw card (the vault's number at an account holding no token for it), and the
// network transaction id they carry: the real SDK against the Stripe fake over HTTP.
const account = { id: 'con_stripe_mit', mode: 'test' as const };
const originalBaseUrl = config.STRIPE_API_BASE_URL;
let fake: StripeFake;
let stripe: Connector;

beforeAll(async () => {
  fake = await startStripeFake();
  config.STRIPE_API_BASE_URL = fake.url;
  stripe = stripeProvider.connect({ secret_key: STRIPE_FAKE_SECRET_KEY }, account);
});
afterEach(() => fake.clearFaults());
afterAll(async () => {
  await fake.close();
  config.STRIPE_API_BASE_URL = originalBaseUrl;
});

const NETWORK_ID = /^\d{15}$/;
const vaulted = (number = '4242424242424242') => ({ number, exp_month: 12, exp_year: 2034 });
const request = (overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => {
  const paymentId = `pay_${randomUUID()}`;
  return { paymentId, idempotencyKey: `${paymentId}_1`, amount: 5000, currency: 'EUR', attempt: 1, ...overrides };
};
/** A renewal of the vaulted card at this account, naming the card's first authorization elsewhere. */
const merchantCharge = (overrides: Partial<AuthorizeRequest> = {}) =>
  request({ card: vaulted(), initiator: { type: 'merchant', networkTransactionId: '483297104628113' }, ...overrides });
const approved = (result: AuthorizeResult) => {
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  return result;
};
const createUnder = (key: string) => fake.requests.find((r) => r.idempotencyKey === key && r.path === '/v1/payment_intents')?.body;

describe('network transaction id', () => {
  it("a customer-initiated authorization returns the charge's network transaction id", async () => {
    // Prepare
    const attempt = request({ card: { ...vaulted(), cvc: '123' } });
    // Act
    const result = approved(await stripe.authorize(attempt));
    // Assess: read from the expanded charge, as Stripe answers it
    expect(result.networkTransactionId).toMatch(NETWORK_ID);
    expect(createUnder(attempt.idempotencyKey)).toMatchObject({ expand: ['latest_charge'], error_on_requires_action: 'true' });
  });

  it('a look-up by key (no request to replay) keeps the network transaction id', async () => {
    // Prepare
    const attempt = request({ card: { ...vaulted(), cvc: '123' } });
    const result = approved(await stripe.authorize(attempt));
    // Act
    const found = await stripe.lookup(attempt.idempotencyKey);
    // Assess
    expect(found).toEqual({ found: 'authorized', reference: result.reference, providerToken: '', networkTransactionId: result.networkTransactionId });
  });
});

describe('merchant-initiated charge of a raw card', () => {
  it('is confirmed off-session with the network transaction id in mit_exemption and no CVC, and approved', async () => {
    // Prepare
    const renewal = merchantCharge();
    // Act
    const result = approved(await stripe.authorize(renewal));
    // Assess
    expect(result.networkTransactionId).toMatch(NETWORK_ID);
    expect(result.networkTransactionId).not.toBe('483297104628113');
    const sent = createUnder(renewal.idempotencyKey) as Record<string, unknown>;
    expect(sent).toMatchObject({
      confirm: 'true',
      off_session: 'true',
      capture_method: 'manual',
      payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: '12', exp_year: '2034' } },
      payment_method_options: { card: { mit_exemption: { network_transaction_id: '483297104628113' } } },
    });
    expect(sent.payment_method_data).not.toHaveProperty('card.cvc');
    expect(sent).not.toHaveProperty('error_on_requires_action');
    expect(fake.holds().find((hold) => hold.reference === result.reference)).toMatchObject({ state: 'authorized', amount: 5000 });
  });

  it('sends no CVC even when one is handed in, and no mit_exemption without an id', async () => {
    // Prepare
    const renewal = merchantCharge({ card: { ...vaulted(), cvc: '123' }, initiator: { type: 'merchant' } });
    // Act
    approved(await stripe.authorize(renewal));
    // Assess
    const sent = createUnder(renewal.idempotencyKey) as Record<string, unknown>;
    expect(sent).toMatchObject({ off_session: 'true' });
    expect(sent.payment_method_data).not.toHaveProperty('card.cvc');
    expect(sent).not.toHaveProperty('payment_method_options');
  });

  it('with storeFor keeps the card at this account: the next renewal charges its token', async () => {
    // Prepare
    const renewal = merchantCharge({ storeFor: { customerReference: `cus_${randomUUID()}`, email: 'mit@example.com' } });
    // Act
    const kept = approved(await stripe.authorize(renewal));
    const nextRenewal = request({
      providerToken: kept.providerToken,
      initiator: { type: 'merchant', networkTransactionId: kept.networkTransactionId },
    });
    const next = approved(await stripe.authorize(nextRenewal));
    // Assess: the token names the series at Stripe, so no mit_exemption goes with it
    expect(kept.providerToken).toMatch(/^cus_\w+\|pm_\w+$/);
    expect(createUnder(renewal.idempotencyKey)).toMatchObject({ off_session: 'true', setup_future_usage: 'off_session' });
    expect(next.providerToken).toBe(kept.providerToken);
    expect(createUnder(nextRenewal.idempotencyKey)).toMatchObject({ off_session: 'true', payment_method: kept.providerToken!.split('|')[1] });
    expect(createUnder(nextRenewal.idempotencyKey)).not.toHaveProperty('payment_method_options');
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000009987', 'lost_card'],
  ])('declines %s with %s, holding nothing', async (number, declineCode) => {
    // Prepare
    const renewal = merchantCharge({ card: vaulted(number) });
    // Act
    const result = await stripe.authorize(renewal);
    // Assess
    expect(result).toMatchObject({ outcome: 'declined', declineCode });
    expect(fake.holds().filter((hold) => hold.idempotencyKey === renewal.idempotencyKey)).toEqual([]);
  });

  it.each([
    [503, { outcome: 'soft_failure', reason: 'provider_down' }],
    [500, { outcome: 'unknown' }],
  ] as const)('answers HTTP %i as before', async (status, expected) => {
    // Prepare
    fake.inject('authorize', { kind: 'status', status }, 3);
    // Act
    const result = await stripe.authorize(merchantCharge());
    // Assess
    expect(result).toMatchObject(expected);
  });

  it('a connection lost after Stripe accepted is resolved by replay, with the network transaction id', async () => {
    // Prepare
    fake.inject('authorize', { kind: 'accept_then_drop' }, 2);
    const renewal = merchantCharge();
    // Act
    const result = await stripe.authorize(renewal);
    const found = await stripe.lookup(renewal.idempotencyKey, undefined, renewal);
    // Assess
    expect(result.outcome).toBe('unknown');
    expect(found).toMatchObject({ found: 'authorized', networkTransactionId: expect.stringMatching(NETWORK_ID) });
  });
});

describe('the fake checks merchant-initiated parameters', () => {
  const post = (form: Record<string, string>) =>
    fetch(`${fake.url}/v1/payment_intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${STRIPE_FAKE_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  const card = { 'payment_method_data[type]': 'card', 'payment_method_data[card][number]': '4242424242424242', amount: '100', currency: 'eur' };

  it.each([
    ['off_session without confirm', { ...card, off_session: 'true' }, 'off_session'],
    [
      'mit_exemption on a customer-initiated payment',
      { ...card, confirm: 'true', 'payment_method_options[card][mit_exemption][network_transaction_id]': '1' },
      'payment_method_options[card][mit_exemption]',
    ],
    ['an expansion it does not offer', { ...card, confirm: 'true', 'expand[0]': 'customer' }, 'expand'],
  ])('refuses %s with a 400 naming the parameter', async (_case, form, param) => {
    // Act
    const response = await post(form);
    // Assess
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', param } });
  });
});
