/**
 * Merchant-initiated charges of a raw card at Adyen (the vault's number at an account holding no token for it) and
 * the network transaction id: the live connector against the Adyen fake, which checks every body against Checkout v72.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { adyenProvider } from '../../shared/providers/adyen/index.ts';
import type { AuthorizeRequest, AuthorizeResult, Connector } from '../../shared/providers/types.ts';
import {
  ADYEN_FAKE_API_KEY,
  ADYEN_FAKE_CREDENTIALS,
  ADYEN_FAKE_MERCHANT_ACCOUNT,
  type AdyenFakeServer,
  startAdyenFake,
} from '../../infra/local/fakes/adyen/server.ts';

let fake: AdyenFakeServer;
let adyen: Connector;
const originalBaseUrl = config.ADYEN_CHECKOUT_BASE_URL;

beforeAll(async () => {
  fake = await startAdyenFake({ port: 0 });
  config.ADYEN_CHECKOUT_BASE_URL = fake.url;
  adyen = adyenProvider.connect(ADYEN_FAKE_CREDENTIALS, { id: 'con_adyen_mit', mode: 'test' });
});
afterEach(() => {
  fake.clearFaults();
  expect(fake.contractViolations).toEqual([]);
});
afterAll(async () => {
  await fake.close();
  if (originalBaseUrl === undefined) delete config.ADYEN_CHECKOUT_BASE_URL;
  else config.ADYEN_CHECKOUT_BASE_URL = originalBaseUrl;
});

const NETWORK_ID = /^\d{15}$/;
const EARLIER_ID = '483297104628113';
const request = (overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => {
  const paymentId = `pay_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  return { paymentId, idempotencyKey: `${paymentId}_1`, amount: 5000, currency: 'EUR', attempt: 1, ...overrides };
};
const vaulted = (number = '4242424242424242') => ({ number, exp_month: 3, exp_year: 2030 });
const merchantCharge = (overrides: Partial<AuthorizeRequest> = {}) =>
  request({ card: vaulted(), initiator: { type: 'merchant', networkTransactionId: EARLIER_ID }, ...overrides });
const approved = (result: AuthorizeResult) => {
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  return result;
};
const sentUnder = (key: string) => fake.requests.find((r) => r.idempotencyKey === key)?.body as Record<string, unknown>;

describe('network transaction id', () => {
  it('a customer-initiated authorization returns additionalData.networkTxReference', async () => {
    // Prepare
    const attempt = request({ card: { ...vaulted(), cvc: '737' } });
    // Act
    const result = approved(await adyen.authorize(attempt));
    // Assess
    expect(result.networkTransactionId).toMatch(NETWORK_ID);
    expect(sentUnder(attempt.idempotencyKey)).toMatchObject({ paymentMethod: { cvc: '737' } });
    expect(sentUnder(attempt.idempotencyKey)).not.toHaveProperty('shopperInteraction');
  });
});

describe('merchant-initiated charge of a raw card', () => {
  it('is ContAuth + Subscription with networkTxReference and no CVC, and approved', async () => {
    // Prepare
    const renewal = merchantCharge();
    // Act
    const result = approved(await adyen.authorize(renewal));
    // Assess
    expect(result.networkTransactionId).toMatch(NETWORK_ID);
    const sent = sentUnder(renewal.idempotencyKey);
    expect(sent).toMatchObject({
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'Subscription',
      additionalData: { manualCapture: 'true', networkTxReference: EARLIER_ID },
      paymentMethod: { type: 'scheme', number: '4242424242424242', expiryMonth: '03', expiryYear: '2030' },
    });
    expect(sent.paymentMethod).not.toHaveProperty('cvc');
    expect(fake.holds().find((hold) => hold.reference === result.reference)).toMatchObject({ state: 'authorized', amount: 5000 });
  });

  it('an unscheduled charge is UnscheduledCardOnFile; a CVC handed in is not sent', async () => {
    // Prepare
    const topUp = merchantCharge({
      card: { ...vaulted(), cvc: '737' },
      initiator: { type: 'merchant', networkTransactionId: EARLIER_ID, recurringModel: 'unscheduled' },
    });
    // Act
    approved(await adyen.authorize(topUp));
    // Assess
    const sent = sentUnder(topUp.idempotencyKey);
    expect(sent).toMatchObject({ shopperInteraction: 'ContAuth', recurringProcessingModel: 'UnscheduledCardOnFile' });
    expect(sent.paymentMethod).not.toHaveProperty('cvc');
  });

  it('without an id it is still ContAuth, with no networkTxReference', async () => {
    // Prepare
    const renewal = merchantCharge({ initiator: { type: 'merchant' } });
    // Act
    approved(await adyen.authorize(renewal));
    // Assess
    expect(sentUnder(renewal.idempotencyKey)).toMatchObject({ shopperInteraction: 'ContAuth', additionalData: { manualCapture: 'true' } });
    expect(sentUnder(renewal.idempotencyKey)).not.toHaveProperty('additionalData.networkTxReference');
  });

  it('with storeFor stores the card at this account: the next renewal charges its token', async () => {
    // Prepare
    const renewal = merchantCharge({ storeFor: { customerReference: `cus_${randomUUID()}` } });
    // Act
    const kept = approved(await adyen.authorize(renewal));
    const nextRenewal = request({ providerToken: kept.providerToken, initiator: { type: 'merchant', networkTransactionId: EARLIER_ID } });
    const next = approved(await adyen.authorize(nextRenewal));
    // Assess: the stored payment method names the series at Adyen, so no networkTxReference goes with it
    expect(sentUnder(renewal.idempotencyKey)).toMatchObject({ storePaymentMethod: true, shopperInteraction: 'ContAuth' });
    expect(kept.providerToken).toMatch(/^\w+:cus_/);
    expect(next.providerToken).toBe(kept.providerToken);
    expect(sentUnder(nextRenewal.idempotencyKey)).toMatchObject({ shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription' });
    expect(sentUnder(nextRenewal.idempotencyKey)).not.toHaveProperty('additionalData.networkTxReference');
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
  ])('declines %s with %s', async (number, declineCode) => {
    // Act
    const result = await adyen.authorize(merchantCharge({ card: vaulted(number) }));
    // Assess
    expect(result).toMatchObject({ outcome: 'declined', declineCode });
  });

  it.each([503, 500])('answers HTTP %i as an outage, as before (provider_down)', async (status) => {
    // Prepare
    fake.inject('authorize', { kind: 'status', status });
    // Act
    const result = await adyen.authorize(merchantCharge());
    // Assess
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
  });

  it('a lost answer is resolved by replay under the same key, keeping the network transaction id', async () => {
    // Prepare
    fake.inject('authorize', { kind: 'accept_then_drop' });
    const renewal = merchantCharge();
    // Act
    const result = await adyen.authorize(renewal);
    const found = await adyen.lookup(renewal.idempotencyKey, undefined, renewal);
    // Assess
    expect(result.outcome).toBe('unknown');
    expect(found).toMatchObject({ found: 'authorized', networkTransactionId: expect.stringMatching(NETWORK_ID) });
  });
});

describe('the fake checks networkTxReference as the contract describes it', () => {
  const pay = (body: Record<string, unknown>) =>
    fetch(`${fake.url}/v72/payments`, {
      method: 'POST',
      headers: { 'x-api-key': ADYEN_FAKE_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        merchantAccount: ADYEN_FAKE_MERCHANT_ACCOUNT,
        amount: { currency: 'EUR', value: 100 },
        reference: randomUUID(),
        returnUrl: 'https://no-redirect.invalid/adyen',
        paymentMethod: { type: 'scheme', number: '4242424242424242', expiryMonth: '03', expiryYear: '2030' },
        additionalData: { networkTxReference: EARLIER_ID },
        ...body,
      }),
    });

  it.each([
    ['without ContAuth', { recurringProcessingModel: 'Subscription' }],
    ['with CardOnFile', { shopperInteraction: 'ContAuth', recurringProcessingModel: 'CardOnFile' }],
  ])('refuses it %s (422)', async (_case, body) => {
    // Act
    const response = await pay(body);
    // Assess
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ errorType: 'validation', message: expect.stringMatching(/networkTxReference/) });
  });
});

describe('the fake checks how a charge of stored details is flagged', () => {
  /** A card stored at the fake for a new shopper: its stored payment method id and shopper reference. */
  async function storedCard() {
    const kept = approved(
      await adyen.authorize(request({ card: { ...vaulted(), cvc: '737' }, storeFor: { customerReference: `cus_${randomUUID()}` } })),
    );
    const [storedPaymentMethodId, shopperReference] = kept.providerToken!.split(':');
    return { paymentMethod: { type: 'scheme', storedPaymentMethodId }, shopperReference };
  }
  const pay = (body: Record<string, unknown>) =>
    fetch(`${fake.url}/v72/payments`, {
      method: 'POST',
      headers: { 'x-api-key': ADYEN_FAKE_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        merchantAccount: ADYEN_FAKE_MERCHANT_ACCOUNT,
        amount: { currency: 'EUR', value: 100 },
        reference: randomUUID(),
        returnUrl: 'https://no-redirect.invalid/adyen',
        ...body,
      }),
    });

  it.each([
    ['the shopper (Ecommerce + CardOnFile)', { shopperInteraction: 'Ecommerce', recurringProcessingModel: 'CardOnFile' }],
    ['the merchant (ContAuth + Subscription)', { shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription' }],
  ])('authorises a charge by %s', async (_case, flags) => {
    // Act
    const response = await pay({ ...(await storedCard()), ...flags });
    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ resultCode: 'Authorised' });
  });

  it.each([
    ['without a recurringProcessingModel', { shopperInteraction: 'Ecommerce' }, /recurringProcessingModel is required/],
    ['ContAuth without a recurringProcessingModel', { shopperInteraction: 'ContAuth' }, /ContAuth needs a recurringProcessingModel/],
    ['Ecommerce with Subscription', { shopperInteraction: 'Ecommerce', recurringProcessingModel: 'Subscription' }, /CardOnFile, not Subscription/],
  ])('refuses one %s (422)', async (_case, flags, message) => {
    // Act
    const response = await pay({ ...(await storedCard()), ...flags });
    // Assess
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ errorType: 'validation', message: expect.stringMatching(message) });
  });
});
