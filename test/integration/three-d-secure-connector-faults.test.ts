import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// The reconciler reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('three-d-secure-connector-faults'));
import { config } from '../../shared/config.ts';
import { clock } from '../../shared/model/clock.ts';
import { reconcile } from '../../shared/domain/reconciler.ts';
import { getStoredPayment } from '../../shared/store/payments.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import type { FakeFault, FakeOperation } from '../../infra/local/fakes/types.ts';
import { connect, merchantIn } from '../support/connected-accounts.ts';
import { moveClock, openOperations, resetClock } from '../support/faults.ts';
import { startInboundGateway } from '../support/inbound.ts';
import { payments } from '../support/payments.ts';
import { allowShop, fakeChallenge, shopperReturns } from '../support/three-d-secure.ts';

/**
 * 3-D Secure under faults with the real Stripe and Adyen connectors against their fakes, both accounts connected: the
 * provider's answer lost when the return asks it, the reconciler after the shopper's hour with the provider's cancel
 * failing once, a void racing the return. Counted at the fakes' books: one authorization at most, at the provider
 * the payment names and nowhere else, and the payment in that provider's state with no operation left open.
 */
let fakes: ProviderFakes;
let gateway: Awaited<ReturnType<typeof startInboundGateway>>;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
  gateway = await startInboundGateway();
});
afterAll(async () => {
  await fakes.close();
  await gateway.close();
});
afterEach(() => {
  fakes.stripe.clearFaults();
  fakes.adyen.clearFaults();
  resetClock();
});

type Provider = 'stripe' | 'adyen';
const CHALLENGE_CARD: Record<Provider, string> = { stripe: '4000000000003220', adyen: '5454545454545454' };
/** The call that finishes the payment at the return (Stripe: the PaymentIntent read; Adyen: /payments/details). */
const COMPLETION: Record<Provider, FakeOperation> = { stripe: 'status', adyen: 'complete_authentication' };
const DROPPED: FakeFault = { kind: 'accept_then_drop' };
const HOUR = 60 * 60_000;

/**
 * A merchant with both fake accounts, and a payment routed to `provider` waiting for the shopper's challenge. Adyen
 * confirms a cancellation by notification only: its fake notifies this merchant's account.
 */
async function waitingAt(provider: Provider) {
  const { secretKey, merchantId } = await merchantIn('test');
  await allowShop(secretKey);
  await connect(secretKey, 'stripe', 'test');
  fakes.adyen.notifications.register(gateway.urlFor(await connect(secretKey, 'adyen', 'test')));
  const created = await payments.create(secretKey, {
    amount: 3100,
    currency: 'eur',
    routing: provider,
    return_url: 'https://shop.example/done',
    payment_method: { type: 'card', card: { number: CHALLENGE_CARD[provider], exp_month: 3, exp_year: 2030, cvc: '737' } },
  });
  expect(created.body.status, created.rawBody).toBe('requires_action');
  return { secretKey, merchantId, id: created.body.id as string, nextAction: created.body.next_action.redirect_to_url.url as string };
}

/** Every authorization the fakes hold (not voided) under the payment's attempt keys, as `provider state`. */
async function heldAtFakes(merchantId: string, paymentId: string): Promise<string[]> {
  const stored = await getStoredPayment({ merchant_id: merchantId, livemode: false }, paymentId);
  const keys = (stored?.attempts ?? []).map((a) => a.id);
  return (['stripe', 'adyen', 'braintree'] as const).flatMap((p) =>
    fakes[p]
      .holds()
      .filter((h) => h.state !== 'voided' && keys.some((k) => h.idempotencyKey?.startsWith(k)))
      .map((h) => `${p} ${h.state}`),
  );
}

/** The payment as stored, and what must hold of it whatever the fault: nothing open, held exactly where it says. */
async function settled(merchantId: string, paymentId: string) {
  const stored = await getStoredPayment({ merchant_id: merchantId, livemode: false }, paymentId);
  const held = await heldAtFakes(merchantId, paymentId);
  expect(await openOperations(merchantId)).toEqual([]);
  expect(held).toEqual(stored?.status === 'succeeded' ? [`${stored.provider} authorized`] : []);
  return stored;
}

const reconcileAfterTheHour = async () => {
  moveClock(HOUR + 2 * 60_000);
  await reconcile(clock.now());
};

describe.each(['stripe', 'adyen'] as const)('3-D Secure at the %s fake under faults', (provider) => {
  it("the provider's answer lost at the return: the payment waits on, and the shopper's next return finishes it once", async () => {
    // Prepare: the shopper passed the challenge; the provider finishes the payment and the answer is lost
    const { merchantId, id, nextAction } = await waitingAt(provider);
    const returnPage = await fakeChallenge(nextAction);
    // (two drops: the Stripe SDK retries a reset connection once)
    fakes[provider].inject(COMPLETION[provider], DROPPED, provider === 'stripe' ? 2 : 1);
    // Act
    const lost = await shopperReturns(returnPage);
    const meanwhile = await getStoredPayment({ merchant_id: merchantId, livemode: false }, id);
    moveClock(2 * 60_000);
    const again = await shopperReturns(returnPage);
    // Assess
    expect([lost.status, again.status]).toEqual([303, 303]);
    expect(meanwhile?.status).toBe('requires_action');
    expect(await settled(merchantId, id)).toMatchObject({ status: 'succeeded', provider, three_d_secure: { flow: 'challenge' } });
  });

  it("the provider's answer lost at the return and nobody returns: the reconciler ends it in the provider's state", async () => {
    // Prepare
    const { merchantId, id, nextAction } = await waitingAt(provider);
    const returnPage = await fakeChallenge(nextAction);
    fakes[provider].inject(COMPLETION[provider], DROPPED, provider === 'stripe' ? 2 : 1);
    await shopperReturns(returnPage);
    // Act
    await reconcileAfterTheHour();
    // Assess: Stripe's PaymentIntent says authorized; Adyen can only be asked with the shopper's result, so the
    // reconciler cancels what it holds there
    const stored = await settled(merchantId, id);
    if (provider === 'stripe') expect(stored).toMatchObject({ status: 'succeeded' });
    else expect(stored).toMatchObject({ status: 'failed', decline_code: 'authentication_required' });
  });

  it('the reconciler after 60 minutes with the cancel failing once: cancelled at the provider in the end, failed', async () => {
    // Prepare: the shopper never comes back; the provider's first cancel fails
    const { secretKey, merchantId, id } = await waitingAt(provider);
    fakes[provider].inject('void', { kind: 'status', status: 500 });
    // Act
    await reconcileAfterTheHour();
    const afterFirst = await getStoredPayment({ merchant_id: merchantId, livemode: false }, id);
    await reconcileAfterTheHour();
    // Assess
    expect(afterFirst).toMatchObject({ status: 'requires_action', op: { kind: 'authenticate' } });
    const cancels = fakes[provider].requests.filter((r) => r.operation === 'void' && r.path.includes(afterFirst!.provider_reference!));
    expect(cancels.length).toBeGreaterThanOrEqual(2);
    expect(await settled(merchantId, id)).toMatchObject({ status: 'failed', decline_code: 'authentication_required' });
    expect((await payments.get(secretKey, id)).body).toMatchObject({ status: 'failed', next_action: null });
  });

  it('a void racing the return: exactly one wins, and when the void wins nothing is held at the provider', async () => {
    // Prepare
    const { secretKey, merchantId, id, nextAction } = await waitingAt(provider);
    const returnPage = await fakeChallenge(nextAction);
    // Act
    const [voided, back] = await Promise.all([payments.void(secretKey, id), shopperReturns(returnPage)]);
    await fakes.adyen.notifications.flush();
    // Assess
    const context = `void ${voided.status} ${voided.rawBody}`;
    expect(back.status, context).toBe(303);
    const stored = await settled(merchantId, id);
    if (voided.status === 200) expect(stored?.status, context).toBe('voided');
    else expect([voided.status, stored?.status], context).toEqual([409, 'succeeded']);
  });
});
