import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../shared/model/cards.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { paymentMethodKeys } from '../../shared/store/keys.ts';
import { getPaymentMethod } from '../../shared/store/payment-methods.ts';
import { getStoredPayment } from '../../shared/store/payments.ts';
import { newMerchant, testOwner } from '../support/merchant.ts';
import { cardBody, paymentMethods } from '../support/payment-methods.ts';
import { paymentBody, payments } from '../support/payments.ts';

/** A fresh Luhn-valid number of `length` digits starting with `prefix` (card velocity never couples two tests). */
function numberOf(prefix: string, length: number): string {
  const body = prefix + Array.from({ length: length - prefix.length - 1 }, () => Math.floor(Math.random() * 10)).join('');
  for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
  throw new Error('unreachable');
}

/** Card numbers are 13 to 19 digits; one under 15 digits keeps its last four only, no BIN (its first six). */
describe('short card numbers', () => {
  it('a 13-digit card is taken, and its payment keeps last4 and no BIN; a 16-digit one keeps its BIN', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const short = numberOf('422222', 13);
    const long = numberOf('424242', 16);
    // Act
    const [made, control] = await Promise.all([payments.create(apiKey, paymentBody({}, short)), payments.create(apiKey, paymentBody({}, long))]);
    // Assess
    expect(made.status).toBe(200);
    expect(made.body.payment_method.card).toMatchObject({ brand: 'visa', last4: short.slice(-4) });
    const stored = await getStoredPayment(testOwner(merchantId), made.body.id);
    expect(stored?.card).toMatchObject({ last4: short.slice(-4), bin: '' });
    expect((await getStoredPayment(testOwner(merchantId), control.body.id))?.card).toMatchObject({ bin: long.slice(0, 6) });
  });

  it('a 14-digit card saved as a payment method keeps last4 and no BIN', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const diners = numberOf('3622', 14);
    // Act
    const saved = await paymentMethods.create(apiKey, cardBody(diners));
    // Assess
    expect(saved.status).toBe(200);
    expect(saved.body.card).toMatchObject({ brand: 'diners', last4: diners.slice(-4) });
    expect((await getPaymentMethod(testOwner(merchantId), saved.body.id))?.card).toMatchObject({ last4: diners.slice(-4), bin: '' });
    const item = await db.send(new GetCommand({ TableName: TABLE, Key: paymentMethodKeys.item(saved.body.id) }));
    expect(JSON.stringify(item.Item)).not.toContain(diners.slice(0, 6));
  });

  it('a 12-digit number answers 400 naming the rule, for a payment and a payment method', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const twelve = numberOf('4', 12);
    // Act
    const answers = await Promise.all([payments.create(apiKey, paymentBody({}, twelve)), paymentMethods.create(apiKey, cardBody(twelve))]);
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'parameter_invalid' });
      expect(answer.body.error.message).toContain('must be a card number of 13 to 19 digits');
    }
  });
});
