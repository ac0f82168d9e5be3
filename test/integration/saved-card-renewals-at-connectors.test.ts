import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { clock } from '../../shared/model/clock.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { connect, merchantIn, type Mode, type Provider, receivedBy } from '../support/connected-accounts.ts';
import type { Json } from '../support/lambda.ts';
import { cardBody, savedFromBrowser } from '../support/payment-methods.ts';
import { freshCard, payments } from '../support/payments.ts';
import { renewOn, subscribe } from '../support/renewals.ts';
import { rules } from '../support/rules.ts';

/**
 * A subscription on a saved card renews at a connected account that never saw the card: the fake receives the vault's
 * number, no CVC, flagged merchant-initiated with the network transaction id of the card's first authorization
 * (docs/providers.md "Merchant-initiated charges and the network transaction id").
 */
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());
const realNow = clock.now;
afterEach(() => {
  clock.now = realNow;
});

/** The merchant-initiated fields each provider takes with a raw card, naming the series' first network id. */
const MIT_FIELDS: Record<Provider, (networkId: string) => Json> = {
  stripe: (networkId) => ({ off_session: 'true', payment_method_options: { card: { mit_exemption: { network_transaction_id: networkId } } } }),
  adyen: (networkId) => ({
    shopperInteraction: 'ContAuth',
    recurringProcessingModel: 'Subscription',
    additionalData: { networkTxReference: networkId },
  }),
  braintree: (networkId) => ({
    options: { externalVault: { status: 'VAULTED', verifyingNetworkTransactionId: networkId } },
    transaction: { paymentInitiator: 'RECURRING' },
  }),
};

describe.each(['test', 'live'] as Mode[])('a subscription on a saved card, in %s mode', (mode) => {
  it.each([
    ['stripe', 'adyen'],
    ['adyen', 'braintree'],
    ['braintree', 'stripe'],
  ] as const)('first paid at %s, renews at %s merchant-initiated with the first network id, no CVC', async (first, renewer) => {
    // Prepare: the card saved from the browser and paid at the first account; then every payment goes to the other
    const { secretKey, customerId, owner } = await merchantIn(mode);
    const firstAccount = await connect(secretKey, first, mode);
    const renewingAccount = await connect(secretKey, renewer, mode);
    const number = freshCard();
    const pm = (await savedFromBrowser(secretKey, cardBody(number), customerId)).body;
    const paid = await payments.create(secretKey, { amount: 1900, currency: 'eur', routing: first, payment_method: pm.id });
    expect(paid.body, paid.rawBody).toMatchObject({ status: 'succeeded', connector_id: firstAccount });
    const networkId = (await getPaymentMethod(owner, pm.id))!.tokens[firstAccount]!.network_transaction_id!;
    expect(networkId).toMatch(/^\d{15}$/);
    const base = { customer_id: customerId, payment_method: pm.id, plan: 'Pro', amount: 1900, currency: 'eur', interval: 'month' };
    const sub = (await subscribe(secretKey, base)).body;
    const rule = await rules.create(secretKey, { name: `All to ${renewer}`, provider: renewer, strategy: 'fixed', priority: 1, conditions: [] });
    expect(rule.status, rule.rawBody).toBe(200);

    // Act
    await renewOn(sub.next_billing, sub.id);

    // Assess: captured at the other account, which received the vault's card, no CVC, with the MIT fields
    const [renewal] = (await listPayments(owner, {}, { limit: 10 })).data.filter((p) => p.metadata.subscription_id === sub.id);
    expect(renewal).toMatchObject({ status: 'captured', provider: renewer, connector_id: renewingAccount, payment_method_id: pm.id });
    const sent = receivedBy(fakes, renewer, renewal!.attempts![0]!.id);
    expect(sent).toMatchObject({ numberLast4: number.slice(-4), cvc: false, body: MIT_FIELDS[renewer](networkId) });
    expect(Object.keys((await getPaymentMethod(owner, pm.id))!.tokens).sort()).toEqual([firstAccount, renewingAccount].sort());
  });
});
