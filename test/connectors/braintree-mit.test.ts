import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { BRAINTREE_VERSION, braintreeProvider } from '../../shared/providers/braintree/index.ts';
import { DOCUMENTS } from '../../shared/providers/braintree/queries.ts';
import type { AuthorizeRequest, AuthorizeResult, Connector } from '../../shared/providers/types.ts';
import {
  type BraintreeFake,
  type BraintreeFakeRequest,
  FAKE_BRAINTREE_CREDENTIALS,
  startBraintreeFake,
} from '../../infra/local/fakes/braintree/server.ts';

// Merchant-initiated charges of a raw card at Braintree (the vault's number, kept in our vault, not Braintree's) and
// the network transaction id: the connector against the fake, which executes every document against Braintree's schema.
let fake: BraintreeFake;
let braintree: Connector;
const originalGatewayUrl = config.BRAINTREE_GATEWAY_URL;

beforeAll(async () => {
  fake = await startBraintreeFake({ port: 0 });
  config.BRAINTREE_GATEWAY_URL = fake.url;
  braintree = braintreeProvider.connect(FAKE_BRAINTREE_CREDENTIALS, { id: 'con_braintree_mit', mode: 'test' });
});
afterEach(() => fake.clearFaults());
afterAll(async () => {
  await fake.close();
  if (originalGatewayUrl === undefined) delete config.BRAINTREE_GATEWAY_URL;
  else config.BRAINTREE_GATEWAY_URL = originalGatewayUrl;
});

const NETWORK_ID = /^\d{15}$/;
const EARLIER_ID = '483297104628113';
const vaulted = (number = '4242424242424242') => ({ number, exp_month: 12, exp_year: 2034 });
const request = (overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => {
  const paymentId = `pay_${randomUUID()}`;
  return { paymentId, idempotencyKey: `${paymentId}_1`, amount: 5000, currency: 'USD', attempt: 1, ...overrides };
};
const merchantCharge = (overrides: Partial<AuthorizeRequest> = {}) =>
  request({ card: vaulted(), initiator: { type: 'merchant', networkTransactionId: EARLIER_ID }, ...overrides });
const approved = (result: AuthorizeResult) => {
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  return result;
};
/** The input of the last call of `field` (tokenizing carries no key: the last one made). */
const inputOf = (field: string, key?: string) => {
  const call = fake.requests.filter((r: BraintreeFakeRequest) => r.field === field && (key === undefined || r.idempotencyKey === key)).at(-1);
  return (call?.body as { variables: { input: Record<string, Record<string, unknown>> } } | undefined)?.variables.input;
};

describe('network transaction id', () => {
  it("a customer-initiated authorization returns the transaction's networkTransactionId, and the look-up keeps it", async () => {
    // Prepare
    const attempt = request({ card: { ...vaulted(), cvc: '123' } });
    // Act
    const result = approved(await braintree.authorize(attempt));
    const found = await braintree.lookup(attempt.idempotencyKey);
    // Assess
    expect(result.networkTransactionId).toMatch(NETWORK_ID);
    expect(found).toEqual({ found: 'authorized', reference: result.reference, providerToken: '', networkTransactionId: result.networkTransactionId });
    expect(inputOf('authorizePaymentMethod', attempt.idempotencyKey)).not.toHaveProperty('options');
  });
});

describe('merchant-initiated charge of a raw card', () => {
  it('is authorizeCreditCard with an external vault, RECURRING, the id, and no CVV; approved', async () => {
    // Prepare
    const renewal = merchantCharge();
    // Act
    const result = approved(await braintree.authorize(renewal));
    // Assess
    expect(result.networkTransactionId).toMatch(NETWORK_ID);
    expect(inputOf('tokenizeCreditCard')?.creditCard).not.toHaveProperty('cvv');
    expect(inputOf('authorizeCreditCard', renewal.idempotencyKey)).toMatchObject({
      options: { externalVault: { status: 'VAULTED', verifyingNetworkTransactionId: EARLIER_ID } },
      transaction: { orderId: renewal.idempotencyKey, paymentInitiator: 'RECURRING', amount: '50.00' },
    });
    expect(fake.holds().find((hold) => hold.reference === result.reference)).toMatchObject({ state: 'authorized', amount: 5000 });
  });

  it('an unscheduled one is UNSCHEDULED; a CVC handed in is not sent', async () => {
    // Prepare
    const topUp = merchantCharge({
      card: { ...vaulted(), cvc: '123' },
      initiator: { type: 'merchant', networkTransactionId: EARLIER_ID, recurringModel: 'unscheduled' },
    });
    // Act
    approved(await braintree.authorize(topUp));
    // Assess
    expect(inputOf('tokenizeCreditCard')?.creditCard).not.toHaveProperty('cvv');
    expect(inputOf('authorizeCreditCard', topUp.idempotencyKey)).toMatchObject({ transaction: { paymentInitiator: 'UNSCHEDULED' } });
  });

  it('with storeFor vaults the card at Braintree too: the next renewal charges that payment method', async () => {
    // Prepare
    const renewal = merchantCharge({ storeFor: { customerReference: `cus_${randomUUID()}`, email: 'mit@example.com' } });
    // Act
    const kept = approved(await braintree.authorize(renewal));
    const nextRenewal = request({ providerToken: kept.providerToken, initiator: { type: 'merchant', networkTransactionId: EARLIER_ID } });
    const next = approved(await braintree.authorize(nextRenewal));
    // Assess
    expect(kept.providerToken).toBeTruthy();
    expect(inputOf('authorizeCreditCard', renewal.idempotencyKey)).toMatchObject({
      transaction: { paymentInitiator: 'RECURRING', vaultPaymentMethodAfterTransacting: { when: 'ON_SUCCESSFUL_TRANSACTION' } },
    });
    expect(next.providerToken).toBe(kept.providerToken);
    // …as a recurring charge of Braintree's own vaulted method: no external vault, so no network id to name
    expect(inputOf('authorizePaymentMethod', nextRenewal.idempotencyKey)).toMatchObject({
      paymentMethodId: kept.providerToken,
      transaction: { paymentInitiator: 'RECURRING' },
    });
    expect(inputOf('authorizePaymentMethod', nextRenewal.idempotencyKey)).not.toHaveProperty('options');
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
  ])('declines %s with %s', async (number, declineCode) => {
    // Act
    const result = await braintree.authorize(merchantCharge({ card: vaulted(number) }));
    // Assess
    expect(result).toMatchObject({ outcome: 'declined', declineCode });
  });

  it('answers HTTP 503 as an outage, as before (provider_down)', async () => {
    // Prepare
    fake.inject('authorize', { kind: 'status', status: 503 });
    // Act
    const result = await braintree.authorize(merchantCharge());
    // Assess
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
  });

  it('a lost answer is unknown; the look-up by orderId finds it with the network transaction id', async () => {
    // Prepare
    fake.inject('authorize', { kind: 'accept_then_drop' });
    const renewal = merchantCharge();
    // Act
    const result = await braintree.authorize(renewal);
    const found = await braintree.lookup(renewal.idempotencyKey);
    // Assess
    expect(result.outcome).toBe('unknown');
    expect(found).toMatchObject({ found: 'authorized', networkTransactionId: expect.stringMatching(NETWORK_ID) });
  });
});

describe('the fake checks the external vault options as the schema describes them', () => {
  async function authorizeCreditCard(paymentInitiator: string, status: string) {
    const headers = {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${FAKE_BRAINTREE_CREDENTIALS.public_key}:${FAKE_BRAINTREE_CREDENTIALS.private_key}`).toString('base64')}`,
      'braintree-version': BRAINTREE_VERSION,
    };
    const post = async (query: string, variables: Record<string, unknown>) =>
      (await (await fetch(`${fake.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) })).json()) as {
        data?: Record<string, { paymentMethod?: { id: string } }>;
        errors?: Array<{ message: string; extensions: Record<string, unknown> }>;
      };
    const creditCard = { number: '4242424242424242', expirationMonth: '12', expirationYear: '2034' };
    const tokenized = await post(DOCUMENTS.TOKENIZE_CREDIT_CARD, { input: { creditCard } });
    const paymentMethodId = tokenized.data?.tokenizeCreditCard?.paymentMethod?.id;
    const options = { externalVault: { status, verifyingNetworkTransactionId: EARLIER_ID } };
    return post(DOCUMENTS.AUTHORIZE_CREDIT_CARD, { input: { paymentMethodId, options, transaction: { amount: '1.00', paymentInitiator } } });
  }

  it.each([
    ['a charge the customer makes', 'RECURRING_FIRST', 'VAULTED'],
    ['a card not vaulted yet', 'RECURRING', 'WILL_VAULT'],
  ])('refuses the id on %s (VALIDATION)', async (_case, paymentInitiator, status) => {
    // Act
    const answer = await authorizeCreditCard(paymentInitiator, status);
    // Assess
    expect(answer.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/verifyingNetworkTransactionId/),
      extensions: { errorClass: 'VALIDATION' },
    });
  });
});
