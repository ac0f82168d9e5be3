import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { luhnValid } from '../../shared/model/cards.ts';
import { SandboxConnector, sandboxBooks, sandboxSettings } from '../../shared/providers/sandbox.ts';
import { SANDBOX_APPROVED_CARD, TEST_CARDS } from '../../shared/providers/test-cards.ts';
import { type AuthorizeRequest, type AuthorizeResult, type Connector, PROVIDERS, type ProviderName } from '../../shared/providers/types.ts';

// sandboxSettings is process-wide: start every test from "all up, no latency" and put the original settings back.
const original = { down: new Set(sandboxSettings.down), latencyMs: { ...sandboxSettings.latencyMs } };

const resetSettings = (down: Iterable<string>, latencyMs: Record<string, number>) => {
  sandboxSettings.down.clear();
  for (const p of down) sandboxSettings.down.add(p);
  for (const key of Object.keys(sandboxSettings.latencyMs)) delete sandboxSettings.latencyMs[key];
  Object.assign(sandboxSettings.latencyMs, latencyMs);
};

beforeEach(() => resetSettings([], {}));
afterEach(() => resetSettings(original.down, original.latencyMs));

/** Through the Connector interface, as the payment flow calls it. */
const connectorFor = (provider: ProviderName): Connector => new SandboxConnector(provider);

const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });

const authorize = (provider: ProviderName, number: string, overrides: Partial<AuthorizeRequest> = {}): Promise<AuthorizeResult> =>
  new SandboxConnector(provider).authorize({
    paymentId: 'pay_TEST',
    idempotencyKey: randomUUID(),
    amount: 5000,
    currency: 'USD',
    card: card(number),
    attempt: 1,
    ...overrides,
  });

/** The outcomes docs/api.md "Test mode" documents for Stripe's test cards. */
const DOCUMENTED_DECLINES: ReadonlyArray<[string, string]> = [
  ['4000000000000002', 'generic_decline'],
  ['4000000000009995', 'insufficient_funds'],
  ['4000000000009987', 'lost_card'],
  ['4000000000009979', 'stolen_card'],
  ['4000000000000069', 'expired_card'],
  ['4000000000000127', 'incorrect_cvc'],
  ['4100000000000019', 'fraudulent'],
];
const PROCESSING_ERROR_CARD = '4000000000000119';
const CHARGES_FAIL_LATER_CARD = '4000000000000341';

describe('SandboxConnector.authorize', () => {
  describe('Stripe test cards', () => {
    it.each(DOCUMENTED_DECLINES)('%s is declined with %s at every provider', async (number, code) => {
      for (const provider of PROVIDERS) {
        // Act
        const result = await authorize(provider, number);
        // Assess
        expect(result, provider).toMatchObject({ outcome: 'declined', declineCode: code });
        expect(result.latencyMs).toBeGreaterThanOrEqual(0);
      }
    });

    it('a decline is final: it does not become an approval at a later attempt', async () => {
      for (const [number, code] of DOCUMENTED_DECLINES) {
        expect(await authorize('adyen', number, { attempt: 2 })).toMatchObject({ outcome: 'declined', declineCode: code });
      }
    });

    it('every TEST_CARDS entry is a documented card with its documented outcome', () => {
      // Assess: the table the connector reads agrees with docs/api.md "Test mode", and holds only Luhn-valid numbers
      const documented = new Map<string, unknown>(DOCUMENTED_DECLINES.map(([n, decline]) => [n, { decline }]));
      documented.set(PROCESSING_ERROR_CARD, { soft: 'first_attempt_processing_error' });
      documented.set(CHARGES_FAIL_LATER_CARD, { laterChargesDecline: true });
      expect(new Map(Object.entries(TEST_CARDS))).toEqual(documented);
      for (const number of Object.keys(TEST_CARDS)) expect(luhnValid(number), number).toBe(true);
    });

    it('4000000000000341 is approved, but charges on its card-on-file token decline', async () => {
      const first = await authorize('stripe', CHARGES_FAIL_LATER_CARD);
      expect(first.outcome).toBe('approved');
      const token = first.outcome === 'approved' ? first.providerToken : '';
      const later = await connectorFor('stripe').authorize({
        paymentId: 'pay_x',
        idempotencyKey: randomUUID(),
        amount: 100,
        currency: 'USD',
        providerToken: token,
        attempt: 1,
      });
      expect(later).toMatchObject({ outcome: 'declined', declineCode: 'generic_decline' });
    });

    it('4000000000000119 fails softly with processing_error at the first attempt, at every provider', async () => {
      for (const provider of PROVIDERS) {
        expect(await authorize(provider, PROCESSING_ERROR_CARD, { attempt: 1 }), provider).toMatchObject({
          outcome: 'soft_failure',
          reason: 'processing_error',
        });
      }
    });

    it('4000000000000119 is approved at the failover attempt (2 and later)', async () => {
      for (const attempt of [2, 3]) {
        const result = await authorize('braintree', PROCESSING_ERROR_CARD, { attempt });
        expect(result.outcome, `attempt ${attempt}`).toBe('approved');
      }
    });
  });

  describe('other Luhn-valid cards', () => {
    it.each(['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '4000002500000003', '9999999999999995'])(
      '%s is approved with a reference and a provider token at every provider',
      async (number) => {
        for (const provider of PROVIDERS) {
          // Act
          const result = await authorize(provider, number);
          // Assess
          expect(result.outcome, provider).toBe('approved');
          if (result.outcome !== 'approved') continue;
          expect(result.reference).toMatch(/\S{8,}/);
          expect(result.providerToken!.startsWith(`tok_${provider}_`)).toBe(true);
          expect(result.providerToken!.length).toBeGreaterThan(`tok_${provider}_`.length);
          expect(result.latencyMs).toBeGreaterThanOrEqual(0);
        }
      },
    );

    it('approves the fixture card SANDBOX_APPROVED_CARD', async () => {
      const result = await new SandboxConnector('stripe').authorize({
        paymentId: 'pay_TEST',
        idempotencyKey: randomUUID(),
        amount: 100,
        currency: 'EUR',
        card: { ...SANDBOX_APPROVED_CARD },
        attempt: 1,
      });
      expect(result.outcome).toBe('approved');
    });

    it('never echoes the card number in the reference or the token', async () => {
      const number = '4242424242424242';
      const result = await authorize('stripe', number);
      if (result.outcome !== 'approved') throw new Error(`expected approval, got ${result.outcome}`);
      for (const value of [result.reference, result.providerToken]) {
        expect(value).not.toContain(number);
        expect(value).not.toContain(number.slice(-8));
      }
    });

    it('issues a new reference and token for every authorization', async () => {
      // Act
      const results = await Promise.all([authorize('adyen', '4242424242424242'), authorize('adyen', '4242424242424242')]);
      // Assess
      const approved = results.flatMap((r) => (r.outcome === 'approved' ? [r] : []));
      expect(approved).toHaveLength(2);
      expect(approved[0]!.reference).not.toBe(approved[1]!.reference);
      expect(approved[0]!.providerToken).not.toBe(approved[1]!.providerToken);
    });
  });

  describe('cards on file (provider token)', () => {
    it('a providerToken passed in is returned as is', async () => {
      // Act
      const result = await new SandboxConnector('braintree').authorize({
        paymentId: 'pay_TEST',
        idempotencyKey: randomUUID(),
        amount: 2500,
        currency: 'USD',
        providerToken: 'tok_braintree_kept',
        attempt: 1,
      });
      // Assess
      expect(result).toMatchObject({ outcome: 'approved', providerToken: 'tok_braintree_kept' });
    });

    it('a providerToken passed with a card is kept too', async () => {
      const result = await authorize('stripe', '4242424242424242', { providerToken: 'tok_stripe_existing' });
      expect(result).toMatchObject({ outcome: 'approved', providerToken: 'tok_stripe_existing' });
    });
  });

  describe('network transaction id and merchant-initiated charges', () => {
    const merchantCharge = (number: string): Partial<AuthorizeRequest> => ({
      card: { number, exp_month: 12, exp_year: 2034 },
      initiator: { type: 'merchant', networkTransactionId: '483297104628113' },
    });

    it('an approval carries a 15-digit network transaction id, which a look-up keeps', async () => {
      // Prepare
      const key = randomUUID();
      const connector = connectorFor('adyen');
      // Act
      const result = await authorize('adyen', '4242424242424242', { idempotencyKey: key });
      const found = await connector.lookup(key);
      // Assess
      expect(result).toMatchObject({ outcome: 'approved', networkTransactionId: expect.stringMatching(/^\d{15}$/) });
      expect(found).toMatchObject({ found: 'authorized', networkTransactionId: (result as { networkTransactionId: string }).networkTransactionId });
    });

    it.each(PROVIDERS)('%s approves a merchant-initiated charge of an approving card without a CVC', async (provider) => {
      // Act
      const result = await authorize(provider, SANDBOX_APPROVED_CARD.number, merchantCharge(SANDBOX_APPROVED_CARD.number));
      // Assess
      expect(result).toMatchObject({ outcome: 'approved', networkTransactionId: expect.stringMatching(/^\d{15}$/) });
    });

    it.each([
      ['customer-initiated without an initiator', undefined, { type: 'customer' }],
      ['merchant-initiated when it says so', { type: 'merchant' } as const, { type: 'merchant', networkTransactionId: null }],
    ])('a token charge is %s', async (_case, initiator, recorded) => {
      // Act
      const result = await authorize('braintree', '', { card: undefined, providerToken: `tok_braintree_${randomUUID()}`, initiator });
      // Assess
      expect(result.outcome).toBe('approved');
      const held = sandboxBooks.authorizations.get((result as { reference: string }).reference);
      expect(held).toMatchObject({ paidWith: 'token', initiator: recorded });
    });

    it('a merchant-initiated charge of a declining card is declined as a customer-initiated one is', async () => {
      // Act
      const result = await authorize('stripe', '4000000000009995', merchantCharge('4000000000009995'));
      // Assess
      expect(result).toMatchObject({ outcome: 'declined', declineCode: 'insufficient_funds' });
    });
  });

  describe('outages (sandboxSettings.down)', () => {
    it('a provider that is down answers a soft provider_down; the others are unaffected', async () => {
      // Prepare
      sandboxSettings.down.add('adyen');
      // Act
      const down = await authorize('adyen', '4242424242424242');
      const up = await authorize('stripe', '4242424242424242');
      // Assess
      expect(down).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
      expect(up.outcome).toBe('approved');
    });

    it('a provider that is down answers provider_down whatever the card (it never reached the issuer)', async () => {
      sandboxSettings.down.add('stripe');
      for (const number of ['4000000000000002', '4100000000000019', PROCESSING_ERROR_CARD]) {
        expect(await authorize('stripe', number, { attempt: 2 }), number).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
      }
    });

    it('answers again once the provider is back up', async () => {
      sandboxSettings.down.add('braintree');
      expect((await authorize('braintree', '4242424242424242')).outcome).toBe('soft_failure');
      sandboxSettings.down.delete('braintree');
      expect((await authorize('braintree', '4242424242424242')).outcome).toBe('approved');
    });

    it('capture, void and refund answer { ok: false, reason: provider_down } while down', async () => {
      // Prepare
      sandboxSettings.down.add('braintree');
      const connector = connectorFor('braintree');
      // Act
      const results = [
        await connector.capture('braintree_ch_1', 5000, 'USD', randomUUID()),
        await connector.void('braintree_ch_1', randomUUID()),
        await connector.refund('braintree_ch_1', 1000, 'USD', randomUUID()),
      ];
      // Assess
      expect(results).toEqual([
        { ok: false, reason: 'provider_down' },
        { ok: false, reason: 'provider_down' },
        { ok: false, reason: 'provider_down' },
      ]);
    });
  });

  describe('latency (sandboxSettings.latencyMs)', () => {
    it('a configured latency makes the reported latency at least that long', async () => {
      // Prepare
      sandboxSettings.latencyMs.stripe = 30;
      // Act
      const started = performance.now();
      const result = await authorize('stripe', '4242424242424242');
      const elapsed = performance.now() - started;
      // Assess: Node timers may fire up to 1 ms early against performance.now() (see the report), hence 29
      expect(result.outcome).toBe('approved');
      expect(result.latencyMs).toBeGreaterThanOrEqual(29);
      expect(elapsed).toBeGreaterThanOrEqual(29);
    });

    it('a provider that is down still takes its latency before answering provider_down', async () => {
      sandboxSettings.latencyMs.adyen = 30;
      sandboxSettings.down.add('adyen');
      const result = await authorize('adyen', '4242424242424242');
      expect(result).toMatchObject({ outcome: 'soft_failure', reason: 'provider_down' });
      expect(result.latencyMs).toBeGreaterThanOrEqual(29);
    });

    it('the latency also applies to capture', async () => {
      sandboxSettings.latencyMs.adyen = 30;
      const started = performance.now();
      const result = await connectorFor('adyen').capture('adyen_ch_1', 5000, 'USD', randomUUID());
      expect(result.ok).toBe(true);
      expect(performance.now() - started).toBeGreaterThanOrEqual(29);
    });
  });
});

describe('SandboxConnector 3-D Secure', () => {
  const shopper = { authentication: { returnUrl: 'https://api.example/hosted/3ds/return/pay_TEST', required: false } };

  it.each(['4000002760003184', '4000000000003220', '4000008400001629'])(
    '%s: Stripe and Adyen send the shopper to a challenge; Braintree, which cannot, declines authentication_required',
    async (number) => {
      // Act
      const [stripe, adyen, braintree] = await Promise.all([
        authorize('stripe', number, shopper),
        authorize('adyen', number, shopper),
        authorize('braintree', number, shopper),
      ]);
      // Assess
      expect([stripe.outcome, adyen.outcome]).toEqual(['requires_action', 'requires_action']);
      expect(braintree).toMatchObject({ outcome: 'declined', declineCode: 'authentication_required' });
      expect(braintree).not.toHaveProperty('threeDSecure');
    },
  );

  it("Braintree's approvals carry no 3-D Secure result: none ran", async () => {
    // Act
    const [stripe, braintree] = await Promise.all([
      authorize('stripe', '4000000000003055', shopper),
      authorize('braintree', '4000000000003055', shopper),
    ]);
    // Assess
    expect(stripe).toMatchObject({ outcome: 'approved', threeDSecure: { flow: 'frictionless', result: 'authenticated' } });
    expect(braintree.outcome).toBe('approved');
    expect(braintree).not.toHaveProperty('threeDSecure');
  });

  it('a card declined after a frictionless authentication says how it authenticated', async () => {
    // Act
    const result = await authorize('adyen', '4000000000009995', shopper);
    // Assess
    expect(result).toMatchObject({
      outcome: 'declined',
      declineCode: 'insufficient_funds',
      threeDSecure: { version: '2.2.0', flow: 'frictionless', result: 'authenticated', eci: '05', liability_shift: true },
    });
  });
});

describe('SandboxConnector capture / void / refund', () => {
  it('capture and void succeed with the payment reference', async () => {
    const connector = connectorFor('stripe');
    expect(await connector.capture('stripe_ch_abc', 5000, 'USD', randomUUID())).toEqual({ ok: true, reference: 'stripe_ch_abc' });
    expect(await connector.void('stripe_ch_abc', randomUUID())).toEqual({ ok: true, reference: 'stripe_ch_abc' });
  });

  it('each refund succeeds with its own reference (partial refunds are separate operations)', async () => {
    // Act
    const connector = connectorFor('adyen');
    const first = await connector.refund('adyen_ch_abc', 1000, 'USD', randomUUID());
    const second = await connector.refund('adyen_ch_abc', 1000, 'USD', randomUUID());
    // Assess
    expect(first.ok).toBe(true);
    expect(second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(first.reference).not.toBe('adyen_ch_abc');
    expect(first.reference).not.toBe(second.reference);
  });

  it('reports its provider name', () => {
    for (const provider of PROVIDERS) expect(new SandboxConnector(provider).name).toBe(provider);
  });
});
