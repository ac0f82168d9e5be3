import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type GraphQLEnumType, parse, validate } from 'graphql';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { fromBraintreeAmount, toBraintreeAmount, UnsupportedAmount } from '../../shared/providers/braintree/amounts.ts';
import {
  GATEWAY_REJECTIONS,
  mapGatewayRejection,
  mapGraphQLErrorClass,
  mapHttpStatus,
  mapProcessorResponse,
  mapTransportError,
  PROCESSOR_RESPONSES,
} from '../../shared/providers/braintree/errors.ts';
import {
  BRAINTREE_VERSION,
  type BraintreeCredentials,
  braintreeProvider,
  graphqlUrl,
  LIVE_ORIGIN,
  SANDBOX_ORIGIN,
} from '../../shared/providers/braintree/index.ts';
import { PAYOUT_DOCUMENTS } from '../../shared/providers/braintree/payout-queries.ts';
import { DOCUMENTS } from '../../shared/providers/braintree/queries.ts';
import { TEST_CARDS } from '../../shared/providers/test-cards.ts';
import type { AuthorizeRequest, Connector } from '../../shared/providers/types.ts';
import { braintreeSchema } from '../../infra/local/fakes/braintree/contract.ts';
import {
  type BraintreeFake,
  type BraintreeFakeRequest,
  FAKE_BRAINTREE_CREDENTIALS,
  startBraintreeFake,
} from '../../infra/local/fakes/braintree/server.ts';

// The connector runs against the fake over HTTP: the fake validates and executes every request against Braintree's
// published schema, so a document the real API would reject fails here too.

let fake: BraintreeFake;
let braintree: Connector;
const originalGatewayUrl = config.BRAINTREE_GATEWAY_URL;

beforeAll(async () => {
  fake = await startBraintreeFake({ port: 0 });
  config.BRAINTREE_GATEWAY_URL = fake.url;
  braintree = connect(FAKE_BRAINTREE_CREDENTIALS);
});
afterEach(() => {
  fake.clearFaults();
  fake.gateway.settleCaptures = true;
});
afterAll(async () => {
  await fake.close();
  if (originalGatewayUrl === undefined) delete config.BRAINTREE_GATEWAY_URL;
  else config.BRAINTREE_GATEWAY_URL = originalGatewayUrl;
});

const connect = (credentials: BraintreeCredentials) => braintreeProvider.connect(credentials, { id: `con_${randomUUID()}`, mode: 'test' });
const card = (number = '4242424242424242') => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });
/** A fresh attempt: unique payment id and idempotency key per call, so tests never see each other's calls. */
const attempt = (overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => {
  const paymentId = `pay_${randomUUID()}`;
  return { paymentId, idempotencyKey: `${paymentId}_1`, amount: 5000, currency: 'USD', card: card(), attempt: 1, ...overrides };
};
const approved = async (request: AuthorizeRequest, connector = braintree) => {
  const result = await connector.authorize(request);
  if (result.outcome !== 'approved') throw new Error(`expected an approval, got ${JSON.stringify(result)}`);
  return result;
};
const holdOf = (reference: string) => fake.holds().find((h) => h.reference === reference);
const holdsUnder = (key: string) => fake.holds().filter((h) => h.idempotencyKey === key);
const calls = (field: string, key?: string) => fake.requests.filter((r) => r.field === field && (key === undefined || r.idempotencyKey === key));
const variables = (request: BraintreeFakeRequest | undefined) =>
  (request?.body as { variables: { input: Record<string, Record<string, unknown>> } }).variables;
const basic = (publicKey: string, privateKey: string) => `Basic ${Buffer.from(`${publicKey}:${privateKey}`).toString('base64')}`;

/** One raw GraphQL request to the fake, as any client would send it. */
async function rawGraphQL(query: string, vars: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await fetch(`${fake.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: basic(FAKE_BRAINTREE_CREDENTIALS.public_key, FAKE_BRAINTREE_CREDENTIALS.private_key),
      'braintree-version': BRAINTREE_VERSION,
      ...headers,
    },
    body: JSON.stringify({ query, variables: vars }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions: Record<string, unknown> }> },
  };
}

describe('Braintree connector: authorize', () => {
  it('approves a card with an authorization only, our key as the orderId', async () => {
    // Given a new card and a USD attempt
    const request = attempt({ amount: 1050 });
    // When it is authorized
    const result = await approved(request);
    // Then Braintree holds 10.50 USD under our key, not captured, on the USD merchant account
    expect(holdOf(result.reference)).toEqual({
      reference: result.reference,
      idempotencyKey: request.idempotencyKey,
      amount: 1050,
      currency: 'USD',
      state: 'authorized',
      captured: 0,
      refunded: 0,
    });
    const sent = variables(calls('authorizePaymentMethod', request.idempotencyKey)[0]).input;
    expect(sent.transaction).toEqual({ amount: '10.50', orderId: request.idempotencyKey, merchantAccountId: 'fake_usd' });
    expect(sent.clientMutationId).toBe(request.idempotencyKey);
    // …and nothing reusable was kept (no storeFor): there is no card-on-file token
    expect(result.providerToken).toBe('');
  });

  it('sends the card only to tokenizeCreditCard (the fake records no number or CVV)', async () => {
    // Given an attempt with a card
    const request = attempt();
    // When it is authorized
    await approved(request);
    // Then the authorization itself carries no card data, only the single-use payment method
    const sent = variables(calls('authorizePaymentMethod', request.idempotencyKey)[0]).input;
    expect(JSON.stringify(sent)).not.toContain(card().number);
    expect(sent.paymentMethodId).toEqual(expect.any(String));
  });

  const DECLINES = Object.entries(TEST_CARDS).flatMap(([number, behaviour]) =>
    'decline' in behaviour ? [[number, behaviour.decline] as const] : [],
  );

  it.each(DECLINES)('declines test card %s with %s (hard: no failover), and the look-up reports the same decline', async (number, declineCode) => {
    // Given a test card the sandbox declines
    const request = attempt({ card: card(number) });
    // When it is authorized at Braintree
    const result = await braintree.authorize(request);
    // Then it is the card's final answer, in our vocabulary, and nothing is held
    expect(result).toMatchObject({ outcome: 'declined', declineCode });
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
    expect(await braintree.lookup(request.idempotencyKey)).toEqual({ found: 'declined', declineCode });
  });

  it.each([
    ['2000', 'do_not_honor'],
    ['2001', 'insufficient_funds'],
    ['2010', 'incorrect_cvc'],
    ['2014', 'fraudulent'],
    ['2038', 'generic_decline'],
    ['cvv', 'incorrect_cvc'],
    ['risk_threshold', 'fraudulent'],
    ['duplicate', 'duplicate_transaction'],
  ])('maps an injected Braintree decline %s to %s', async (code, declineCode) => {
    // Given Braintree will decline the next authorization with its raw code
    fake.inject('authorize', { kind: 'decline', code });
    // When a good card is authorized
    const result = await braintree.authorize(attempt());
    // Then the decline is hard, with our decline code
    expect(result).toMatchObject({ outcome: 'declined', declineCode });
  });

  it.each(['4000002760003184', '4000000000003220', '4000008400001629', '5454545454545454', '4917610000000000'])(
    'a card that challenges at Stripe and Adyen (%s) is declined 2099 Cardholder Authentication Required: authentication_required',
    async (number) => {
      // Prepare: a shopper-present charge; Braintree's 3-D Secure runs in its client SDK, so none comes with it
      const request = attempt({ card: card(number), authentication: { returnUrl: 'https://shop.example/back', required: false } });
      // Act
      const result = await braintree.authorize(request);
      // Assess: the processor's soft decline, as Braintree reports it
      expect(result).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
      const tx = [...fake.gateway.transactions.values()].find((t) => t.orderId === request.idempotencyKey);
      expect(tx?.history.at(-1)).toMatchObject({
        __typename: 'ProcessorDeclinedEvent',
        declineType: 'SOFT',
        processorResponse: { legacyCode: '2099', message: 'Cardholder Authentication Required' },
      });
      expect(holdsUnder(request.idempotencyKey)).toEqual([]);
    },
  );

  it('answers the processor being unreachable (3000, card …0119) as a soft failure: routing may fail over', async () => {
    // Given the sandbox's processing-error card
    const request = attempt({ card: card('4000000000000119') });
    // When it is authorized
    const result = await braintree.authorize(request);
    // Then it is soft, nothing is held, and a look-up finds nothing held under the key
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
    expect(await braintree.lookup(request.idempotencyKey)).toEqual({ found: 'none' });
  });

  it.each([503, 429, 500])('answers HTTP %i as an outage (provider_down) without anything carried out', async (status) => {
    // Given Braintree answers the authorization with this status
    fake.inject('authorize', { kind: 'status', status });
    const request = attempt();
    // When a card is authorized
    const result = await braintree.authorize(request);
    // Then it is an outage: the call reached the fake under our key, but nothing is held
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
    expect(calls('authorizePaymentMethod', request.idempotencyKey)).toHaveLength(1);
    expect(holdsUnder(request.idempotencyKey)).toEqual([]);
  });

  it('answers a refused connection (nothing sent) as an outage', async () => {
    // Given a Braintree origin where nothing listens any more
    const gone = await startBraintreeFake();
    await gone.close();
    config.BRAINTREE_GATEWAY_URL = gone.url;
    try {
      const unreachable = connect(FAKE_BRAINTREE_CREDENTIALS);
      // When a card is authorized
      const result = await unreachable.authorize(attempt());
      // Then it is an outage, not an unknown outcome
      expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
    } finally {
      config.BRAINTREE_GATEWAY_URL = fake.url;
    }
  });

  it('a connection dropped after Braintree carried the authorization out is unknown; the look-up by orderId finds it and reverse voids it', async () => {
    // Given Braintree authorizes, then the connection drops before the answer
    fake.inject('authorize', { kind: 'accept_then_drop' });
    const request = attempt();
    // When the card is authorized
    const result = await braintree.authorize(request);
    // Then the outcome is unknown…
    expect(result.outcome).toBe('unknown');
    // …the look-up by our key finds the authorization…
    const found = await braintree.lookup(request.idempotencyKey);
    expect(found).toMatchObject({ found: 'authorized', reference: expect.any(String) });
    // …and reverse voids it: nothing stays authorized under the key
    expect(await braintree.reverse(request.idempotencyKey)).toMatchObject({ ok: true });
    expect(holdsUnder(request.idempotencyKey)).toEqual([expect.objectContaining({ state: 'voided' })]);
    expect(await braintree.lookup(request.idempotencyKey)).toEqual({ found: 'none' });
  });

  it('an answer slower than the deadline is unknown; the look-up finds what Braintree did and reverse voids it', async () => {
    // Given Braintree carries the authorization out at once but answers after 5 s
    fake.inject('authorize', { kind: 'slow', ms: 5_000 });
    const request = attempt({ signal: AbortSignal.timeout(200) });
    // When the card is authorized with a 200 ms deadline
    const result = await braintree.authorize(request);
    // Then the connector stops at the deadline with an unknown outcome
    expect(result.outcome).toBe('unknown');
    expect(result.latencyMs).toBeLessThan(5_000);
    // …and the authorization is found by orderId and voided
    expect(await braintree.lookup(request.idempotencyKey)).toMatchObject({ found: 'authorized' });
    expect(await braintree.reverse(request.idempotencyKey)).toMatchObject({ ok: true });
    expect(fake.holds().filter((h) => h.idempotencyKey === request.idempotencyKey && h.state === 'authorized')).toEqual([]);
  });

  it('reverse does not answer "nothing held" while an authorization under the key may still land', async () => {
    // Given Braintree holds the authorization request before carrying it out
    const stall = fake.stall('authorize');
    const request = attempt({ signal: AbortSignal.timeout(300) });
    const pending = braintree.authorize(request);
    await stall.arrived;
    // When the deadline passes and the key is searched and reversed
    expect((await pending).outcome).toBe('unknown');
    expect(await braintree.lookup(request.idempotencyKey)).toEqual({ found: 'none' });
    // Then reverse cannot promise that nothing will be held: the attempt stays unknown (no failover)
    expect(await braintree.reverse(request.idempotencyKey)).toEqual({ ok: false, reason: 'unknown' });
    // When Braintree then carries the request out
    await stall.release();
    // Then the late authorization is found and voided
    expect(await braintree.lookup(request.idempotencyKey)).toMatchObject({ found: 'authorized' });
    expect(await braintree.reverse(request.idempotencyKey)).toMatchObject({ ok: true });
    expect(holdsUnder(request.idempotencyKey)).toEqual([expect.objectContaining({ state: 'voided' })]);
  });

  it('reverse of a key never sent answers ok (nothing is or will be held)', async () => {
    // Given a key Braintree never saw
    const key = `pay_${randomUUID()}_1`;
    // When it is reversed
    const result = await braintree.reverse(key);
    // Then nothing is held under it
    expect(result).toEqual({ ok: true, reference: key });
  });

  it('look-up and reverse while Braintree is down say so instead of guessing', async () => {
    // Given an authorization whose answer was lost, and Braintree then down
    fake.inject('authorize', { kind: 'accept_then_drop' });
    const request = attempt();
    await braintree.authorize(request);
    fake.inject('lookup', { kind: 'status', status: 503 }, 2);
    // When the key is looked up and reversed
    const found = await braintree.lookup(request.idempotencyKey);
    const reversed = await braintree.reverse(request.idempotencyKey);
    // Then the look-up is unknown and the reversal failed (nothing was voided yet)
    expect(found).toEqual({ found: 'unknown' });
    expect(reversed).toEqual({ ok: false, reason: 'provider_down' });
    expect(holdsUnder(request.idempotencyKey)).toEqual([expect.objectContaining({ state: 'authorized' })]);
    // …and once Braintree is back, reverse voids it
    expect(await braintree.reverse(request.idempotencyKey)).toMatchObject({ ok: true });
  });

  it('sends JPY and KWD amounts in their own exponents: "1000" and "1.250", on their merchant accounts', async () => {
    // Given a 1000 JPY and a 1.250 KWD attempt
    const yen = attempt({ amount: 1000, currency: 'JPY' });
    const dinar = attempt({ amount: 1250, currency: 'KWD' });
    // When both are authorized
    const [jpy, kwd] = [await approved(yen), await approved(dinar)];
    // Then the fake received the decimal strings Braintree expects, and holds the exact minor amounts
    expect(variables(calls('authorizePaymentMethod', yen.idempotencyKey)[0]).input.transaction).toMatchObject({
      amount: '1000',
      merchantAccountId: 'fake_jpy',
    });
    expect(variables(calls('authorizePaymentMethod', dinar.idempotencyKey)[0]).input.transaction).toMatchObject({
      amount: '1.250',
      merchantAccountId: 'fake_kwd',
    });
    expect(holdOf(jpy.reference)).toMatchObject({ amount: 1000, currency: 'JPY' });
    expect(holdOf(kwd.reference)).toMatchObject({ amount: 1250, currency: 'KWD' });
  });

  it('refuses a currency with no merchant account of its own before sending anything', async () => {
    // Given merchant accounts mapped for USD, EUR, JPY and KWD only
    const request = attempt({ currency: 'GBP' });
    // When a GBP attempt is authorized
    const result = await braintree.authorize(request);
    // Then it fails softly (another provider may take GBP) and Braintree saw no authorization
    expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(calls('authorizePaymentMethod', request.idempotencyKey)).toEqual([]);
  });

  it('without merchant_account_ids, uses the default account for its own currency only', async () => {
    // Given credentials that map no merchant account (the fake's default account takes USD)
    const { merchant_account_ids: _mapped, ...unmapped } = FAKE_BRAINTREE_CREDENTIALS;
    const defaultOnly = connect(unmapped);
    const usd = attempt();
    const eur = attempt({ currency: 'EUR' });
    // When a USD and a EUR attempt are authorized
    const usdResult = await defaultOnly.authorize(usd);
    const eurResult = await defaultOnly.authorize(eur);
    // Then USD goes to the default account (no merchantAccountId sent) and EUR is never sent
    expect(usdResult.outcome).toBe('approved');
    expect(variables(calls('authorizePaymentMethod', usd.idempotencyKey)[0]).input.transaction).not.toHaveProperty('merchantAccountId');
    expect(eurResult).toMatchObject({ outcome: 'soft_failure', reason: 'processing_error' });
    expect(calls('authorizePaymentMethod', eur.idempotencyKey)).toEqual([]);
  });
});

describe('Braintree connector: card on file', () => {
  it('vaults the card with storeFor and renews on the vaulted payment method as a merchant-initiated recurring charge', async () => {
    // Given a first payment that keeps the card for a customer
    const first = attempt({ storeFor: { customerReference: `cus_${randomUUID()}`, email: 'renewals@example.com' } });
    const initial = await approved(first);
    // Then the vaulted payment method is the reusable token, vaulted only on success, as the first of a series
    expect(initial.providerToken).not.toBe('');
    expect(variables(calls('authorizePaymentMethod', first.idempotencyKey)[0]).input.transaction).toMatchObject({
      paymentInitiator: 'RECURRING_FIRST',
      vaultPaymentMethodAfterTransacting: { when: 'ON_SUCCESSFUL_TRANSACTION' },
      customerDetails: { email: 'renewals@example.com' },
    });
    // When a renewal charges the token (no card)
    const renewal = attempt({ card: undefined, providerToken: initial.providerToken, amount: 2500, initiator: { type: 'merchant' } });
    const renewed = await approved(renewal);
    // Then it is a recurring merchant-initiated authorization on that payment method, with no new tokenization
    const sent = variables(calls('authorizePaymentMethod', renewal.idempotencyKey)[0]).input;
    expect(sent.paymentMethodId).toBe(initial.providerToken);
    expect(sent.transaction).toMatchObject({ paymentInitiator: 'RECURRING', amount: '25.00' });
    expect(renewed.providerToken).toBe(initial.providerToken);
    expect(holdOf(renewed.reference)).toMatchObject({ amount: 2500, state: 'authorized' });
    // …and the look-up of either attempt returns the token too
    expect(await braintree.lookup(first.idempotencyKey)).toMatchObject({ found: 'authorized', providerToken: initial.providerToken });
  });

  it("the shopper's next payment on the vaulted payment method is customer-initiated: no paymentInitiator", async () => {
    // Given a card vaulted with a first payment
    const initial = await approved(attempt({ storeFor: { customerReference: `cus_${randomUUID()}` } }));
    const next = attempt({ card: undefined, providerToken: initial.providerToken, amount: 1800 });
    // When the shopper pays with it again
    const charged = await approved(next);
    // Then the vaulted payment method is authorized with no initiator (the schema's customer-initiated ecommerce)
    const sent = variables(calls('authorizePaymentMethod', next.idempotencyKey)[0]).input;
    expect(sent.paymentMethodId).toBe(initial.providerToken);
    expect(sent.transaction).toMatchObject({ amount: '18.00' });
    expect(sent.transaction).not.toHaveProperty('paymentInitiator');
    expect(sent).not.toHaveProperty('options');
    expect(charged.providerToken).toBe(initial.providerToken);
    expect(holdOf(charged.reference)).toMatchObject({ amount: 1800, state: 'authorized' });
  });

  it.each([
    ['merchant-initiated', { type: 'merchant' } as const],
    ['customer-initiated', undefined],
  ])('card 4000000000000341 is vaulted and approved once, but a later %s charge declines', async (_kind, initiator) => {
    // Given the first payment with the "charges fail later" card, kept on file
    const initial = await approved(attempt({ card: card('4000000000000341'), storeFor: { customerReference: `cus_${randomUUID()}` } }));
    expect(initial.providerToken).not.toBe('');
    // When a later charge uses the vaulted card
    const later = await braintree.authorize(attempt({ card: undefined, providerToken: initial.providerToken, initiator }));
    // Then it is declined for good
    expect(later).toMatchObject({ outcome: 'declined', declineCode: 'generic_decline' });
  });

  it('does not vault a declined card', async () => {
    // Given a declining card with storeFor
    const request = attempt({ card: card('4000000000009995'), storeFor: { customerReference: `cus_${randomUUID()}` } });
    // When it is authorized
    const result = await braintree.authorize(request);
    // Then it is declined and no multi-use payment method was made
    expect(result).toMatchObject({ outcome: 'declined', declineCode: 'insufficient_funds' });
    expect([...fake.gateway.paymentMethods.values()].filter((m) => m.usage === 'MULTI_USE' && m.last4 === '9995')).toEqual([]);
  });
});

describe('Braintree connector: capture, void, refund', () => {
  it('captures part of an authorization once; a capture repeated after a lost answer is the same capture', async () => {
    // Given a 50.00 authorization
    const { reference } = await approved(attempt({ amount: 5000 }));
    const key = `${reference}_capture`;
    // When 30.00 is captured and the answer is lost
    fake.inject('capture', { kind: 'accept_then_drop' });
    expect(await braintree.capture(reference, 3000, 'USD', key)).toEqual({ ok: false, reason: 'unknown' });
    // …and the capture is asked again under the same key
    const retried = await braintree.capture(reference, 3000, 'USD', key);
    // Then it is ok, and Braintree captured 30.00 once
    expect(retried).toEqual({ ok: true, reference });
    expect(holdOf(reference)).toMatchObject({ state: 'captured', captured: 3000, amount: 5000 });
    expect(variables(calls('captureTransaction', key)[0]).input).toEqual({
      clientMutationId: key,
      transactionId: reference,
      transaction: { amount: '30.00' },
    });
  });

  it('refuses to capture more than was authorized', async () => {
    // Given a 50.00 authorization
    const { reference } = await approved(attempt({ amount: 5000 }));
    // When 60.00 is captured
    const result = await braintree.capture(reference, 6000, 'USD', `${reference}_capture`);
    // Then Braintree refuses it, in its words, and nothing is captured
    expect(result).toEqual({ ok: false, reason: 'refused', message: 'Settlement amount is too large.' });
    expect(holdOf(reference)).toMatchObject({ state: 'authorized', captured: 0 });
  });

  it('voids an authorization (again: still ok), and refuses to void a captured one', async () => {
    // Given an authorization and a captured one
    const { reference } = await approved(attempt());
    const captured = await approved(attempt());
    await braintree.capture(captured.reference, 5000, 'USD', `${captured.reference}_capture`);
    // When both are voided, the first twice
    const voided = await braintree.void(reference, `${reference}_void`);
    const again = await braintree.void(reference, `${reference}_void`);
    const refused = await braintree.void(captured.reference, `${captured.reference}_void`);
    // Then the authorization is voided once and the capture stands
    expect(voided).toEqual({ ok: true, reference });
    expect(again).toEqual({ ok: true, reference });
    expect(calls('reverseTransaction', `${reference}_void`)).toHaveLength(1);
    expect(holdOf(reference)).toMatchObject({ state: 'voided' });
    expect(refused).toEqual({ ok: false, reason: 'refused', message: 'Transaction is settled: only an authorization can be voided.' });
    expect(holdOf(captured.reference)).toMatchObject({ state: 'captured', captured: 5000 });
  });

  it('reverse leaves a captured payment alone', async () => {
    // Given an authorization that was captured
    const request = attempt();
    const { reference } = await approved(request);
    await braintree.capture(reference, 5000, 'USD', `${reference}_capture`);
    // When its key is reversed
    const result = await braintree.reverse(request.idempotencyKey);
    // Then the reversal is refused (reverseTransaction would void the capture)
    expect(result).toEqual({ ok: false, reason: 'processing_error' });
    expect(holdOf(reference)).toMatchObject({ state: 'captured' });
  });

  it('refunds several parts of a settled capture and refuses one beyond what is left', async () => {
    // Given 100.00 captured (the fake settles captures at once)
    const { reference } = await approved(attempt({ amount: 10_000 }));
    await braintree.capture(reference, 10_000, 'USD', `${reference}_capture`);
    const [first, second, tooMuch, rest] = ['re_1', 're_2', 're_3', 're_4'].map((r) => `${r}_${randomUUID()}`) as [string, string, string, string];
    // When 30.00 and 25.00 are refunded, then 50.00, then the 45.00 left
    const results = [
      await braintree.refund(reference, 3000, 'USD', first),
      await braintree.refund(reference, 2500, 'USD', second),
      await braintree.refund(reference, 5000, 'USD', tooMuch),
      await braintree.refund(reference, 4500, 'USD', rest),
    ];
    // Then three refunds are made, each under its own key, and the one beyond the captured amount is refused
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true]);
    expect(results[2]).toEqual({ ok: false, reason: 'refused', message: 'Refund amount is too large.' });
    expect(holdOf(reference)).toMatchObject({ captured: 10_000, refunded: 10_000 });
    for (const key of [first, second, rest]) expect(variables(calls('refundTransaction', key)[0]).input.refund).toMatchObject({ orderId: key });
  });

  it('a refund whose answer was lost is found again under its key, not made twice', async () => {
    // Given 40.00 captured, and a refund of 10.00 whose answer is lost
    const { reference } = await approved(attempt({ amount: 4000 }));
    await braintree.capture(reference, 4000, 'USD', `${reference}_capture`);
    const key = `re_${randomUUID()}`;
    fake.inject('refund', { kind: 'accept_then_drop' });
    expect(await braintree.refund(reference, 1000, 'USD', key)).toEqual({ ok: false, reason: 'unknown' });
    // When the refund is asked again under the same key
    const retried = await braintree.refund(reference, 1000, 'USD', key);
    // Then the earlier refund is the answer: 10.00 refunded once
    expect(retried).toMatchObject({ ok: true });
    expect(calls('refundTransaction', key)).toHaveLength(1);
    expect(holdOf(reference)).toMatchObject({ refunded: 1000 });
  });

  it('before settlement, refunds all of a capture by voiding it and refuses a partial refund', async () => {
    // Given two captures that Braintree has not settled yet
    fake.gateway.settleCaptures = false;
    const whole = await approved(attempt({ amount: 2000 }));
    const part = await approved(attempt({ amount: 2000 }));
    await braintree.capture(whole.reference, 2000, 'USD', `${whole.reference}_capture`);
    await braintree.capture(part.reference, 2000, 'USD', `${part.reference}_capture`);
    // When one is refunded in full and the other in part
    const full = await braintree.refund(whole.reference, 2000, 'USD', `re_${randomUUID()}`);
    const partial = await braintree.refund(part.reference, 500, 'USD', `re_${randomUUID()}`);
    // Then the full refund voids the capture; the partial one Braintree refuses (it refunds settled transactions only)
    expect(full).toEqual({ ok: true, reference: whole.reference });
    expect(holdOf(whole.reference)).toMatchObject({ state: 'voided', captured: 2000, refunded: 2000 });
    expect(partial).toEqual({ ok: false, reason: 'refused', message: 'Cannot refund a transaction unless it is settled.' });
    expect(holdOf(part.reference)).toMatchObject({ state: 'captured', refunded: 0 });
  });

  it('every call that moves money carries our key (orderId, or clientMutationId where Braintree has no orderId)', async () => {
    // Given one payment taken through authorize, capture and refund, and another authorized and voided
    const paid = attempt();
    const { reference } = await approved(paid);
    await braintree.capture(reference, 5000, 'USD', `${paid.paymentId}_capture`);
    await braintree.refund(reference, 1000, 'USD', `${paid.paymentId}_re_1`);
    const dropped = attempt();
    const other = await approved(dropped);
    await braintree.void(other.reference, `${dropped.paymentId}_void`);
    // Then each money call reached Braintree under the key we chose for it
    const keyOf = (field: string) => fake.requests.filter((r) => r.field === field).map((r) => r.idempotencyKey);
    expect(keyOf('authorizePaymentMethod')).toEqual(expect.arrayContaining([paid.idempotencyKey, dropped.idempotencyKey]));
    expect(keyOf('captureTransaction')).toContain(`${paid.paymentId}_capture`);
    expect(keyOf('refundTransaction')).toContain(`${paid.paymentId}_re_1`);
    expect(keyOf('reverseTransaction')).toContain(`${dropped.paymentId}_void`);
    const moneyFields = new Set(['authorizePaymentMethod', 'captureTransaction', 'refundTransaction', 'reverseTransaction']);
    expect(fake.requests.filter((r) => moneyFields.has(r.field ?? '') && !r.idempotencyKey)).toEqual([]);
  });
});

describe('Braintree fake: the published schema decides', () => {
  it('every document the connector sends is valid against braintree-schema.graphql', () => {
    // Given Braintree's published schema
    const schema = braintreeSchema();
    // Then each of our documents validates
    for (const [name, document] of Object.entries({ ...DOCUMENTS, ...PAYOUT_DOCUMENTS }))
      expect(
        validate(schema, parse(document)).map((e) => e.message),
        name,
      ).toEqual([]);
  });

  it('rejects a query the schema does not allow, without carrying anything out', async () => {
    // Given a query asking for a field Braintree's GraphQL schema does not have (it is the XML API's name)
    const query = `mutation Authorize($input: AuthorizePaymentMethodInput!) {
      authorizePaymentMethod(input: $input) { transaction { id processorResponseCode } }
    }`;
    const orderId = `pay_${randomUUID()}_1`;
    // When it is sent
    const { status, body } = await rawGraphQL(query, { input: { paymentMethodId: 'unknown', transaction: { amount: '1.00', orderId } } });
    // Then the fake refuses it the way a GraphQL server does, and nothing was authorized
    expect(status).toBe(200);
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]).toMatchObject({ message: expect.stringContaining('processorResponseCode'), extensions: { errorClass: 'VALIDATION' } });
    expect(holdsUnder(orderId)).toEqual([]);
  });

  it('rejects an amount that is not in the Amount scalar format', async () => {
    // Given an authorization with "10.5" (Braintree wants a whole number or two or three decimals)
    const tokenized = await rawGraphQL(DOCUMENTS.TOKENIZE_CREDIT_CARD, {
      input: { creditCard: { number: '4242424242424242', expirationMonth: '12', expirationYear: '2034', cvv: '123' } },
    });
    const paymentMethodId = (tokenized.body.data?.tokenizeCreditCard as { paymentMethod: { id: string } }).paymentMethod.id;
    // When it is sent
    const { body } = await rawGraphQL(DOCUMENTS.AUTHORIZE_PAYMENT_METHOD, { input: { paymentMethodId, transaction: { amount: '10.5' } } });
    // Then the variables do not coerce: refused before execution
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.extensions.errorClass).toBe('VALIDATION');
  });

  it('answers unknown API keys with an AUTHENTICATION error and a missing Braintree-Version as an unsupported client', async () => {
    // When the fake is asked with a wrong private key, then without the version header
    const badKey = await rawGraphQL('query { ping }', {}, { authorization: basic(FAKE_BRAINTREE_CREDENTIALS.public_key, 'wrong') });
    const noVersion = await rawGraphQL('query { ping }', {}, { 'braintree-version': '' });
    const fine = await rawGraphQL('query { ping }');
    // Then each is refused with Braintree's error class, and a correct request answers
    expect(badKey.body.errors?.[0]?.extensions.errorClass).toBe('AUTHENTICATION');
    expect(noVersion.body.errors?.[0]?.extensions.errorClass).toBe('UNSUPPORTED_CLIENT');
    expect(fine.body.data).toEqual({ ping: 'pong' });
  });
});

describe('Braintree provider module', () => {
  it('verifies good credentials with one read-only query', async () => {
    // When the fake's credentials are verified
    const before = fake.requests.length;
    const result = await braintreeProvider.verify(FAKE_BRAINTREE_CREDENTIALS, 'test');
    // Then they are ok, after a single viewer query
    expect(result).toEqual({ ok: true });
    expect(fake.requests.slice(before).map((r) => r.field)).toEqual(['viewer']);
  });

  it.each<[string, BraintreeCredentials, RegExp]>([
    ['a wrong private key', { ...FAKE_BRAINTREE_CREDENTIALS, private_key: 'not-the-key' }, /did not accept these API keys/],
    ['another merchant id', { ...FAKE_BRAINTREE_CREDENTIALS, merchant_id: 'someoneelse' }, /another merchant than someoneelse/],
    ['an unknown merchant account', { ...FAKE_BRAINTREE_CREDENTIALS, merchant_account_ids: { EUR: 'nope' } }, /nope \(for EUR\) does not exist/],
    ['an account of another currency', { ...FAKE_BRAINTREE_CREDENTIALS, merchant_account_ids: { EUR: 'fake_usd' } }, /takes USD, not EUR/],
    ['an account not yet active', { ...FAKE_BRAINTREE_CREDENTIALS, merchant_account_ids: { GBP: 'fake_gbp_pending' } }, /is pending/],
  ])('refuses credentials with %s, saying why', async (_case, credentials, reason) => {
    // When they are verified
    const result = await braintreeProvider.verify(credentials, 'test');
    // Then the reason is given (and never contains the private key)
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    expect(JSON.stringify(result)).not.toContain(credentials.private_key);
  });

  it('checks the credentials shape and shows only the last four characters of the public key', () => {
    // Given credentials as a merchant posts them
    const parsed = v.parse(braintreeProvider.credentialsSchema, { ...FAKE_BRAINTREE_CREDENTIALS, merchant_id: '  fakemerchant0001 ' });
    // Then they are trimmed, the hint is harmless, and no mode rule applies
    expect(parsed.merchant_id).toBe('fakemerchant0001');
    expect(braintreeProvider.hint(parsed)).toBe('…4242');
    expect(braintreeProvider.hint(parsed)).not.toContain(parsed.private_key.slice(-4));
    expect(braintreeProvider.modeMismatch(parsed, 'live')).toBeUndefined();
    // …and malformed ones are refused
    expect(v.safeParse(braintreeProvider.credentialsSchema, { ...parsed, private_key: '' }).success).toBe(false);
    expect(v.safeParse(braintreeProvider.credentialsSchema, { ...parsed, merchant_account_ids: { usd: 'x' } }).success).toBe(false);
    expect(v.safeParse(braintreeProvider.credentialsSchema, { ...parsed, merchant_account_ids: { XXX: 'x' } }).success).toBe(false);
  });

  it('talks to Braintree sandbox or production by mode, or to BRAINTREE_GATEWAY_URL', () => {
    // Given no override
    const saved = config.BRAINTREE_GATEWAY_URL;
    delete config.BRAINTREE_GATEWAY_URL;
    try {
      // Then the mode picks Braintree's endpoint
      expect(graphqlUrl('test')).toBe(`${SANDBOX_ORIGIN}/graphql`);
      expect(graphqlUrl('live')).toBe(`${LIVE_ORIGIN}/graphql`);
      // …and a configured origin wins, the connector adding the path
      config.BRAINTREE_GATEWAY_URL = 'http://127.0.0.1:12111/';
      expect(graphqlUrl('live')).toBe('http://127.0.0.1:12111/graphql');
    } finally {
      config.BRAINTREE_GATEWAY_URL = saved;
    }
  });
});

describe('Braintree amounts', () => {
  it.each([
    [1050, 'USD', '10.50'],
    [5, 'USD', '0.05'],
    [100, 'EUR', '1.00'],
    [1000, 'JPY', '1000'],
    [1, 'JPY', '1'],
    [1250, 'KWD', '1.250'],
    [1, 'BHD', '0.001'],
    [123_456_789_012, 'USD', '1234567890.12'],
  ])('%i minor units of %s are "%s"', (minor, currency, text) => {
    expect(toBraintreeAmount(minor, currency)).toBe(text);
    expect(fromBraintreeAmount(text, currency)).toBe(minor);
  });

  it('reads whole numbers and shorter fractions exactly', () => {
    expect(fromBraintreeAmount('10', 'USD')).toBe(1000);
    expect(fromBraintreeAmount('10.5', 'USD')).toBe(1050);
    expect(fromBraintreeAmount('1.000', 'USD')).toBe(100);
    expect(fromBraintreeAmount('1000.00', 'JPY')).toBe(1000);
  });

  it.each([
    () => toBraintreeAmount(0, 'USD'),
    () => toBraintreeAmount(-100, 'USD'),
    () => toBraintreeAmount(10.5, 'USD'),
    () => toBraintreeAmount(10_000, 'CLF'),
    () => fromBraintreeAmount('1.005', 'USD'),
    () => fromBraintreeAmount('12.5', 'JPY'),
    () => fromBraintreeAmount('1e3', 'USD'),
    () => fromBraintreeAmount('-1.00', 'USD'),
  ])('refuses what is not a whole number of minor units (%#)', (convert) => {
    expect(convert).toThrow(UnsupportedAmount);
  });

  it('round-trips every amount in 0, 2 and 3 decimal currencies without floating point', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom('JPY', 'USD', 'KWD'), (minor, currency) => {
        const text = toBraintreeAmount(minor, currency);
        expect(text).toMatch(/^\d+(\.\d{2,3})?$/);
        expect(fromBraintreeAmount(text, currency)).toBe(minor);
      }),
    );
  });
});

describe('Braintree error map', () => {
  it.each([
    ['2000', 'do_not_honor', 'hard'],
    ['2001', 'insufficient_funds', 'hard'],
    ['2004', 'expired_card', 'hard'],
    ['2010', 'incorrect_cvc', 'hard'],
    ['2012', 'lost_card', 'hard'],
    ['2013', 'stolen_card', 'hard'],
    ['2014', 'fraudulent', 'hard'],
    ['2038', 'generic_decline', 'hard'],
    ['2024', 'card_not_supported', 'soft'],
    ['2999', 'generic_decline', 'hard'],
    ['3000', 'processing_error', 'soft'],
    ['3999', 'processing_error', 'soft'],
  ])('processor response %s → %s (%s)', (code, declineCode, failureClass) => {
    expect(mapProcessorResponse(code)).toEqual({ declineCode, class: failureClass });
  });

  it('names every listed processor response with its Braintree text', () => {
    for (const [code, entry] of Object.entries(PROCESSOR_RESPONSES)) {
      expect(code).toMatch(/^[23]\d{3}$/);
      expect(entry.message.length, code).toBeGreaterThan(0);
    }
  });

  it.each([
    ['FRAUD', 'fraudulent', 'hard'],
    ['fraud', 'fraudulent', 'hard'],
    ['cvv', 'incorrect_cvc', 'hard'],
    ['RISK_THRESHOLD', 'fraudulent', 'hard'],
    ['duplicate', 'duplicate_transaction', 'hard'],
    ['AVS', 'incorrect_zip', 'hard'],
    ['APPLICATION_INCOMPLETE', 'processing_error', 'soft'],
  ])('gateway rejection %s → %s (%s)', (reason, declineCode, failureClass) => {
    expect(mapGatewayRejection(reason)).toEqual({ declineCode, class: failureClass });
  });

  it('covers every gateway rejection reason of the schema', () => {
    const reasons = braintreeSchema().getType('GatewayRejectionReason') as GraphQLEnumType;
    expect(Object.keys(GATEWAY_REJECTIONS).sort()).toEqual(
      reasons
        .getValues()
        .map((value) => value.name)
        .sort(),
    );
  });

  it.each([
    ['VALIDATION', 'soft'],
    ['NOT_FOUND', 'soft'],
    ['AUTHENTICATION', 'soft'],
    ['AUTHORIZATION', 'soft'],
    ['UNSUPPORTED_CLIENT', 'soft'],
    ['RESOURCE_LIMIT', 'outage'],
    ['SERVICE_AVAILABILITY', 'outage'],
    ['INTERNAL', 'unknown'],
    [undefined, 'unknown'],
  ])('GraphQL error class %s → %s', (errorClass, failureClass) => {
    expect(mapGraphQLErrorClass(errorClass).class).toBe(failureClass);
  });

  it('classes HTTP answers and transport errors: before sending an outage, after sending unknown', () => {
    expect(mapHttpStatus(503).class).toBe('outage');
    expect(mapHttpStatus(500).class).toBe('outage');
    expect(mapHttpStatus(429).class).toBe('outage');
    expect(mapHttpStatus(400).class).toBe('soft');
    const fetchFailed = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
    expect(mapTransportError(fetchFailed('ECONNREFUSED')).class).toBe('outage');
    expect(mapTransportError(fetchFailed('ENOTFOUND')).class).toBe('outage');
    expect(mapTransportError(fetchFailed('UND_ERR_CONNECT_TIMEOUT')).class).toBe('outage');
    expect(mapTransportError(fetchFailed('UND_ERR_SOCKET')).class).toBe('unknown');
    expect(mapTransportError(fetchFailed('ECONNRESET')).class).toBe('unknown');
    expect(mapTransportError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')).class).toBe('unknown');
  });
});
