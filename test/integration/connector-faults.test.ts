import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// The reconciler reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('connector-faults'));
import { handler as connect } from '../../functions/connectors/create.ts';
import { config } from '../../shared/config.ts';
import { createRoutingRule } from '../../shared/domain/routing-rules.ts';
import { providerDeadlines } from '../../shared/providers/index.ts';
import { getStoredPayment } from '../../shared/store/payments.ts';
import type { FakeFault, FakeOperation, FakeServer } from '../../infra/local/fakes/types.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { resetClock, runReconciler } from '../support/faults.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testActor, testOwner } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';

/**
 * "Never two authorizations", with the real connectors against the providers' fakes: the first provider accepts and
 * then drops the connection, or answers after the deadline. Whatever happens, the payment ends authorized at exactly
 * one provider (or at none, with a 500 naming it), never at two; and what the service could not confirm, the
 * reconciler reverses.
 */
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
  providerDeadlines.authorizeMs = 400;
});
afterAll(() => fakes.close());
afterEach(() => {
  for (const fake of allFakes()) fake.clearFaults();
  resetClock();
});

const PROVIDERS = ['stripe', 'adyen', 'braintree'] as const;
type Provider = (typeof PROVIDERS)[number];
const allFakes = (): FakeServer[] => PROVIDERS.map((p) => fakes[p]);

/** A merchant with one fake-backed account per provider. */
const connectAccount = async (apiKey: string, provider: Provider) => {
  const body = { provider, credentials: fakes.credentials[provider] };
  const res = await invokeHttp(connect, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body }));
  expect(res.status).toBe(200);
};

async function merchantWithAccounts() {
  const merchant = await newMerchant();
  for (const provider of PROVIDERS) await connectAccount(merchant.apiKey, provider);
  return merchant;
}

/** Authorizations the fakes hold (not voided) under any of the payment's attempt keys. */
async function heldAcrossProviders(merchantId: string, paymentId: string) {
  const keys = new Set(((await getStoredPayment(testOwner(merchantId), paymentId))?.attempts ?? []).map((a) => a.id));
  return PROVIDERS.flatMap((p) =>
    fakes[p]
      .holds()
      .filter((h) => h.state !== 'voided' && h.idempotencyKey && [...keys].some((k) => h.idempotencyKey!.startsWith(k)))
      .map((h) => `${p} ${h.reference} ${h.state}`),
  );
}

/** A catch-all smart rule that puts `provider` first and keeps failover to the others. */
const putFirst = (merchantId: string, provider: Provider) =>
  createRoutingRule(testActor(merchantId), { name: `${provider} first`, provider, strategy: 'smart', priority: 1, conditions: [] });

const FAULTS: [string, FakeOperation, FakeFault, number][] = [
  ['accepts, then drops the connection', 'authorize', { kind: 'accept_then_drop' }, 2],
  ['accepts, then answers after the deadline', 'authorize', { kind: 'slow', ms: 1_000 }, 1],
];
const CASES = PROVIDERS.flatMap((provider) => FAULTS.map(([label, ...fault]) => [provider, label, ...fault] as const));

describe('never two authorizations', () => {
  it.each(CASES)('%s tried first %s: the payment is authorized at exactly one provider', async (first, _label, operation, fault, times) => {
    // Prepare
    const { apiKey, merchantId } = await merchantWithAccounts();
    await putFirst(merchantId, first);
    fakes[first].inject(operation, fault, times);
    // Act
    const res = await payments.create(apiKey, paymentBody({ routing: 'rules' }, CARDS.approved));
    await runReconciler();
    // Assess
    const context = `${first}: ${res.status} ${res.rawBody}`;
    const id: string = res.body.id ?? res.body.error?.payment_id;
    expect(id, context).toBeTruthy();
    const held = await heldAcrossProviders(merchantId, id);
    const stored = await getStoredPayment(testOwner(merchantId), id);
    if (res.status === 200) {
      expect(held, context).toHaveLength(1);
      expect(held[0]!.startsWith(`${res.body.provider} `), context).toBe(true);
      expect(stored?.status).toBe('succeeded');
    } else {
      expect(res.status, context).toBe(500);
      expect(held, context).toEqual([]);
    }
    expect(stored?.op, context).toBeUndefined();
  });

  it.each(PROVIDERS)(
    '%s: an authorization nobody could confirm is reversed by the reconciler, and nothing fails over meanwhile',
    async (provider) => {
      // Prepare: the provider accepts and drops the answer; its look-ups and reversals fail until it recovers
      const merchant = await newMerchant();
      await connectAccount(merchant.apiKey, provider);
      const fake = fakes[provider];
      // (three drops: the Stripe SDK retries a reset connection once, and Stripe's look-up replays the create)
      fake.inject('authorize', { kind: 'accept_then_drop' }, 3);
      fake.inject('lookup', { kind: 'status', status: 503 }, 5);
      fake.inject('reverse', { kind: 'status', status: 503 }, 5);
      // Act: the create cannot tell; then the provider recovers and the reconciler runs
      const res = await payments.create(merchant.apiKey, paymentBody({ routing: provider }, CARDS.approved));
      const heldBefore = res.body.error ? await heldAcrossProviders(merchant.merchantId, res.body.error.payment_id) : [];
      fake.clearFaults();
      await runReconciler();
      // Assess
      const context = `${res.status} ${res.rawBody} held before: ${heldBefore.join(', ')}`;
      if (res.status === 200) {
        // the look-up got through after all (a provider that answers the replay from its idempotency store)
        expect(await heldAcrossProviders(merchant.merchantId, res.body.id), context).toHaveLength(1);
        return;
      }
      expect(res.status, context).toBe(500);
      expect(res.body.error, context).toMatchObject({ code: 'provider_outcome_unknown', payment_id: expect.stringMatching(/^pay_/) });
      expect(heldBefore.length, context).toBeLessThanOrEqual(1);
      expect(await heldAcrossProviders(merchant.merchantId, res.body.error.payment_id), context).toEqual([]);
      const stored = await getStoredPayment(testOwner(merchant.merchantId), res.body.error.payment_id);
      expect(stored?.status).toBe('failed');
      expect(stored?.op).toBeUndefined();
      expect(stored?.attempts?.map((a) => a.status)).toEqual(['reversed']);
    },
  );
});
