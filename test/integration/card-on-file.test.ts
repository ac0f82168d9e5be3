import { describe, expect, it } from 'vitest';
import { chargeCardOnFile } from '../../shared/domain/card-on-file.ts';
import { getCustomer } from '../../shared/store/customers.ts';
import { newMerchant, testActor, testOwner } from '../support/merchant.ts';
import { freshCard, paymentBody, payments } from '../support/payments.ts';

describe("a customer's card on file", () => {
  it('is the card of the latest successful payment, kept as first stored while later payments use the same card at the same provider', async () => {
    // Prepare: a merchant whose customer (jane@example.com) pays at stripe
    const { apiKey, customerId, merchantId } = await newMerchant();
    const cardOnFile = async () => (await getCustomer(testOwner(merchantId), customerId))?.card_on_file;
    const pay = async (card: string, overrides: Record<string, unknown> = {}) => {
      const res = await payments.create(apiKey, paymentBody({ routing: 'stripe', ...overrides }, card));
      expect(res.status).toBe(200);
      return res.body as { provider_token?: unknown; id: string };
    };
    const [cardA, cardB] = [freshCard(), freshCard()];

    // Act + Assess: the first payment puts card A on file
    await pay(cardA);
    const first = await cardOnFile();
    expect(first).toMatchObject({ provider: 'stripe', last4: cardA.slice(-4), fingerprint: expect.stringMatching(/^[0-9a-f]{32,}$/) });

    // the same card again: the token on file stays the one first stored (it charges the same card)
    await pay(cardA);
    expect(await cardOnFile()).toEqual(first);

    // a renewal-style charge of the card on file leaves it as it is
    await chargeCardOnFile(testActor(merchantId), { customerId, amount: 990, currency: 'USD' });
    expect(await cardOnFile()).toEqual(first);

    // the same card at another provider, a new expiry, or another card: each replaces it
    await pay(cardA, { routing: 'adyen' });
    expect(await cardOnFile()).toMatchObject({ provider: 'adyen', last4: cardA.slice(-4) });
    await pay(cardA, { routing: 'adyen', payment_method: { type: 'card', card: { number: cardA, exp_month: 1, exp_year: 2035, cvc: '737' } } });
    expect(await cardOnFile()).toMatchObject({ provider: 'adyen', exp_month: 1, exp_year: 2035 });
    await pay(cardB, { routing: 'adyen' });
    const last = await cardOnFile();
    expect(last).toMatchObject({ provider: 'adyen', last4: cardB.slice(-4) });
    expect(last?.provider_token).not.toBe(first?.provider_token);
  });
});
