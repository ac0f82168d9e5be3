import { marshall } from '@aws-sdk/util-dynamodb';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pack } from '../../shared/store/stored-form.ts';
import { cardFieldsIn, cardNumbersIn, luhnRunsIn, masked, readableItem } from '../support/card-numbers.ts';

/** What the leak scan (test/card-scan) sees of a main-table item. */
const itemText = (item: Record<string, unknown>) => JSON.stringify(readableItem(marshall(item)));

describe('the card-number detector of the leak scan', () => {
  it('finds a number in a nested field, in a deflated event payload and in a packed field', () => {
    // Prepare
    const nested = { pk: 'PAY#1', meta: { notes: [{ text: 'card 4242424242424242 on file' }] } };
    const event = { pk: 'EVT#1', data: deflateRawSync(JSON.stringify({ object: { card: { number: '5555555555554444' } } })) };
    const payment = { pk: 'PAY#2', card: pack({ brand: 'amex', last4: '0005', number: '378282246310005' }) };

    // Act + Assess
    expect(cardNumbersIn(itemText(nested))).toEqual(['4242424242424242']);
    expect(cardNumbersIn(itemText(event))).toEqual(['5555555555554444']);
    expect(cardNumbersIn(itemText(payment))).toEqual(['378282246310005']);
  });

  it('finds numbers printed with dashes or spaces, next to other digits, and a 2-series Mastercard', () => {
    // Act + Assess
    expect(cardNumbersIn('pan=4242-4242-4242-4242;')).toEqual(['4242424242424242']);
    expect(cardNumbersIn('amex 3782 822463 10005 exp 12 2030')).toEqual(['378282246310005']);
    expect(cardNumbersIn('"4000 0000 0000 0002 2030"')).toEqual(['4000000000000002']);
    expect(cardNumbersIn('{"pan":"2223003122003222"}')).toEqual(['2223003122003222']);
  });

  it('ignores ms timestamps, ids, amounts, Luhn-invalid runs and mixed separators', () => {
    // Prepare: 1718000000000 (ms) and 4242424242424241 fail Luhn; 1000000000009 passes it but starts with 1
    const text = [
      '{"created_ms":1718000000000,"at":1000000000009,"id":"pay_01J9Z8Y7X6W5V4T3S2R1Q0P9N8","amount":424242}',
      'number 4242424242424241, 2025-06-30 12:00, 4242 4242-4242 4242, 424242424242424242424',
    ].join('\n');

    // Act + Assess
    expect(cardNumbersIn(text)).toEqual([]);
  });

  it("ignores digits of hex hashes, UUIDs and random fractions, as the whole suite's table holds them", () => {
    // Prepare: what the first run of the scan over the whole suite flagged, each with a Luhn-valid run and a brand's prefix
    const item = {
      pk: 'APIKEY#c34312879301c0abae82e5636442809692417658a5b329038012a51fb4dc7a78#2',
      email: 'merchant-483fb5e7-2463-4548-8928-659d33a35a9e@example.test',
      idempotency_key: 'fault-0.6742179268612696',
    };

    // Act + Assess
    expect(cardNumbersIn(itemText(item))).toEqual([]);
    expect(cardNumbersIn('card4242424242424242 4242424242424242x 0.4242424242424242')).toEqual([]);
    expect(cardNumbersIn('no.4242424242424242, fault-4242424242424242_1')).toEqual(['4242424242424242', '4242424242424242']);
  });

  it('tells a network transaction id from a card by its field, and still finds a card put in that field', () => {
    // Prepare: 378282246310005 is an Amex test card, 15 digits like a network transaction id
    const token = { provider: 'stripe', network_transaction_id: '378282246310005' };
    const wrong = { provider: 'stripe', network_transaction_id: '4242424242424242' };

    // Act + Assess
    expect(cardNumbersIn(JSON.stringify(token, null, 4))).toEqual([]);
    expect(cardNumbersIn(JSON.stringify(wrong))).toEqual(['4242424242424242']);
    expect(cardNumbersIn('network id 378282246310005')).toEqual(['378282246310005']);
  });

  it('finds any Luhn-valid run for the vault, brand or not, glued to letters or not', () => {
    // Act + Assess
    expect(luhnRunsIn('CARD#mer_1:test#pm_1 1000000000009 1718000000000 x4242424242424242y')).toEqual(['1000000000009', '4242424242424242']);
  });

  it('finds fields named like a CVC or a card number holding digits, and masks what it prints', () => {
    // Prepare
    const item = readableItem(marshall({ number: 'INV-000042', payment: { card: { cvc: '737', card_number: '4242 4242' } }, list: [{ cvv: 123 }] }));

    // Act + Assess
    expect(cardFieldsIn(item)).toEqual(['payment.card.cvc', 'payment.card.card_number', 'list[0].cvv']);
    expect(masked('4242424242424242')).toBe('424242••••••4242');
  });
});
