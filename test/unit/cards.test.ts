import { describe, expect, it } from 'vitest';
import { cardBrand, cardFingerprint, luhnValid } from '../../shared/model/cards.ts';
import { currencyExponent, isCurrency } from '../../shared/domain/currency.ts';

/** Stripe's public test card numbers: all Luhn-valid. */
const STRIPE_TEST_NUMBERS = [
  '4242424242424242',
  '4000056655665556',
  '5555555555554444',
  '2223003122003222',
  '5200828282828210',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '3566002020360505',
  '3056930009020004',
  '36227206271667',
  '6200000000000005',
  '4000000000000002',
  '4000000000009995',
  '4000000000009987',
  '4000000000009979',
  '4000000000000069',
  '4000000000000127',
  '4000000000000119',
  '4100000000000019',
  '4000002500000003',
];

/** The same number with the digit at `index` replaced by the next digit (mod 10). */
const bumpDigit = (number: string, index: number) => number.slice(0, index) + String((Number(number[index]) + 1) % 10) + number.slice(index + 1);

describe('luhnValid', () => {
  it.each(STRIPE_TEST_NUMBERS)('accepts the Stripe test number %s', (number) => {
    expect(luhnValid(number)).toBe(true);
  });

  it.each(STRIPE_TEST_NUMBERS)('rejects %s with any single digit changed', (number) => {
    // Act
    const results = Array.from({ length: number.length }, (_, i) => luhnValid(bumpDigit(number, i)));
    // Assess
    expect(results.every((valid) => !valid)).toBe(true);
  });

  it.each(['4242424242424241', '4242424242424243', '5555555555554440', '378282246310006', '1234567812345678'])('rejects %s', (number) => {
    expect(luhnValid(number)).toBe(false);
  });

  it('catches a swap of two adjacent different digits', () => {
    expect(luhnValid('4242424242424224')).toBe(false);
  });
});

describe('cardBrand', () => {
  it.each([
    ['4242424242424242', 'visa'],
    ['4000056655665556', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['5200828282828210', 'mastercard'],
    ['378282246310005', 'amex'],
    ['371449635398431', 'amex'],
    ['6011111111111117', 'discover'],
    ['3566002020360505', 'jcb'],
    ['3056930009020004', 'diners'],
    ['36227206271667', 'diners'],
    ['6200000000000005', 'unionpay'],
    ['9999999999999995', 'unknown'],
    ['1234567812345670', 'unknown'],
  ])('%s is %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });

  it.each([
    ['2221000000000009', 'mastercard'], // first of the 2-series range
    ['2720990000000007', 'mastercard'], // last of the 2-series range
    ['2220990000000000', 'unknown'],
    ['2721000000000000', 'unknown'],
    ['5100000000000000', 'mastercard'],
    ['5600000000000000', 'unknown'],
  ])('mastercard range boundary %s is %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });
});

describe('cardFingerprint', () => {
  const secret = 'test-secret-0123456789';

  it('is stable for the same secret and number', () => {
    expect(cardFingerprint(secret, '4242424242424242')).toBe(cardFingerprint(secret, '4242424242424242'));
  });

  it('differs across numbers', () => {
    // Act
    const prints = STRIPE_TEST_NUMBERS.map((n) => cardFingerprint(secret, n));
    // Assess
    expect(new Set(prints).size).toBe(STRIPE_TEST_NUMBERS.length);
  });

  it('differs across secrets', () => {
    expect(cardFingerprint(secret, '4242424242424242')).not.toBe(cardFingerprint(`${secret}-other`, '4242424242424242'));
  });

  it('does not contain the card number, its last 4 or its BIN', () => {
    for (const number of STRIPE_TEST_NUMBERS) {
      const print = cardFingerprint(secret, number);
      expect(print).not.toContain(number);
      expect(print).not.toContain(number.slice(0, 8));
      expect(print).not.toContain(number.slice(-8));
    }
  });

  it('is a fixed-length hex string', () => {
    for (const number of STRIPE_TEST_NUMBERS) expect(cardFingerprint(secret, number)).toMatch(/^[0-9a-f]{32}$/);
  });
});

// shared/domain/currency.ts
describe('isCurrency', () => {
  it.each(['USD', 'usd', 'Usd', 'EUR', 'eur', 'JPY', 'KWD', 'gbp', 'CHF'])('accepts %s', (code) => {
    expect(isCurrency(code)).toBe(true);
  });

  it.each(['XXX', 'US', 'usdd', 'USDD', '', 'ABC', 'EU', ' usd', 'us d'])('rejects %j', (code) => {
    expect(isCurrency(code)).toBe(false);
  });
});

describe('currencyExponent', () => {
  it.each([
    ['JPY', 0],
    ['jpy', 0],
    ['KRW', 0],
    ['CLP', 0],
    ['USD', 2],
    ['usd', 2],
    ['EUR', 2],
    ['GBP', 2],
    ['KWD', 3],
    ['kwd', 3],
    ['BHD', 3],
    ['TND', 3],
  ])('%s has %i decimals', (code, exponent) => {
    expect(currencyExponent(code)).toBe(exponent);
  });
});
