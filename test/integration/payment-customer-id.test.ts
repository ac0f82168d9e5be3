import { describe, expect, it } from 'vitest';
import { createCustomer } from '../../shared/domain/customers.ts';
import { getCustomer } from '../../shared/store/customers.ts';
import { newMerchant, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { rules } from '../support/rules.ts';

/** `customer_id` instead of `customer{}` (docs/api.md "Payments"): the payment is linked to that customer. */
describe('a payment naming its customer by id', () => {
  it('is linked to the customer: its id, its e-mail (for filters), and its card on file', async () => {
    // Prepare: a merchant with its customer (jane@example.com)
    const { apiKey, customerId, merchantId } = await newMerchant();
    const { customer: _customer, ...body } = paymentBody({ routing: 'stripe', customer_id: customerId });

    // Act
    const res = await payments.create(apiKey, body);

    // Assess
    expect(res.status, res.rawBody).toBe(200);
    expect(res.body).toMatchObject({
      status: 'succeeded',
      customer_id: customerId,
      customer: { email: 'jane@example.com' },
    });
    const listed = await payments.list(apiKey, { customer_email: 'jane@example.com' });
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([res.body.id]);
    expect((await getCustomer(testOwner(merchantId), customerId))?.card_on_file).toMatchObject({
      provider: 'stripe',
      last4: body.payment_method.card.number.slice(-4),
    });
  });

  it('answers 400 parameter_invalid naming customer_id when customer is given as well', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    // Act
    const res = await payments.create(apiKey, paymentBody({ customer_id: customerId }));
    // Assess: nothing stored
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'customer_id' });
    expect(res.body.error.message).toMatch(/customer_id or customer, not both/);
    expect((await payments.list(apiKey)).body.total).toBe(0);
  });

  it("answers 400 resource_missing for an unknown customer, another merchant's, or one of the other mode", async () => {
    // Prepare: a merchant, another merchant's customer, and a live customer of the merchant itself
    const { apiKey, merchantId } = await newMerchant();
    const other = await newMerchant();
    const live = await createCustomer({ id: merchantId, credential: 'api_key', livemode: true }, { email: 'live@example.com' });

    for (const customerId of ['cus_doesnotexist', other.customerId, live.id, 'not an id at all']) {
      // Act
      const { customer: _customer, ...body } = paymentBody({ customer_id: customerId });
      const res = await payments.create(apiKey, body);
      // Assess
      expect(res.status, customerId).toBe(400);
      expect(res.body.error, customerId).toMatchObject({ code: 'resource_missing', param: 'customer_id' });
    }
    expect((await payments.list(apiKey)).body.total).toBe(0);
  });
});

describe('a routing simulation naming its customer by id', () => {
  it("routes by the customer's e-mail domain, and answers 400 resource_missing for a customer that is not the merchant's", async () => {
    // Prepare: a rule for the customer's domain (jane@example.com) sends payments to Adyen
    const { apiKey, customerId } = await newMerchant();
    const other = await newMerchant();
    const rule = await rules.create(apiKey, {
      name: 'Example to Adyen',
      provider: 'adyen',
      conditions: [{ field: 'customer_email_domain', operator: 'equals', value: 'example.com' }],
    });
    expect(rule.status, rule.rawBody).toBe(200);

    // Act
    const named = await payments.simulate(apiKey, { amount: 2500, currency: 'usd', customer_id: customerId });
    const anonymous = await payments.simulate(apiKey, { amount: 2500, currency: 'usd' });
    const foreign = await payments.simulate(apiKey, { amount: 2500, currency: 'usd', customer_id: other.customerId });

    // Assess
    expect(named.status, named.rawBody).toBe(200);
    expect(named.body.provider).toBe('adyen');
    expect(named.body.routing_decision.reason).toMatch(/Example to Adyen/);
    expect(anonymous.body.routing_decision.reason).not.toMatch(/Example to Adyen/);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'resource_missing', param: 'customer_id' });
  });
});
