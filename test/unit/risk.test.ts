import { describe, expect, it } from 'vitest';
import { assessRisk, RISK_DECLINE_THRESHOLD, type RiskSignals } from '../../shared/domain/risk.ts';

/** An unremarkable payment: a US card paying in USD, a normal e-mail, first attempt, an ordinary amount. */
const signals = (overrides: Partial<RiskSignals> = {}): RiskSignals => ({
  cardNumber: '4242424242424242',
  currency: 'USD',
  amount: 5000,
  customerEmail: 'jane@example.com',
  cardAttemptsThisHour: 1,
  merchantMeanAmount: 5000,
  ...overrides,
});

const FRAUD_CARD = '4100000000000019';
const FR_CARD = '4000002500000003'; // Stripe's France test card

const baseline = assessRisk(signals()).score;
/** How many points the overrides add to the unremarkable payment. */
const added = (overrides: Partial<RiskSignals>) => assessRisk(signals(overrides)).score - baseline;

describe('assessRisk', () => {
  it('keeps a plain 4242 card with a normal e-mail well below the decline threshold, with no reasons', () => {
    // Act
    const risk = assessRisk(signals());
    // Assess
    expect(risk.score).toBeLessThan(RISK_DECLINE_THRESHOLD - 50);
    expect(risk.score).toBeGreaterThanOrEqual(0);
    expect(risk.reasons).toEqual([]);
  });

  it('declines at 85', () => {
    expect(RISK_DECLINE_THRESHOLD).toBe(85);
  });

  describe('the fraud test card', () => {
    it('scores 100 and says the card is on the fraud list', () => {
      const risk = assessRisk(signals({ cardNumber: FRAUD_CARD }));
      expect(risk.score).toBe(100);
      expect(risk.score).toBeGreaterThanOrEqual(RISK_DECLINE_THRESHOLD);
      expect(risk.reasons.join(' ')).toMatch(/fraud/);
    });

    it('scores 100 whatever the other signals', () => {
      const risk = assessRisk({ cardNumber: FRAUD_CARD, currency: 'EUR', amount: 1, customerEmail: 'a@example.com', cardAttemptsThisHour: 1 });
      expect(risk.score).toBe(100);
    });
  });

  describe('card velocity (attempts with this card in the current hour)', () => {
    it.each([
      [1, 0],
      [5, 0],
      [6, 30],
      [10, 30],
      [11, 60],
      [40, 60],
    ])('%i attempts add %i points', (attempts, points) => {
      expect(added({ cardAttemptsThisHour: attempts })).toBe(points);
    });

    it('names the number of attempts', () => {
      expect(assessRisk(signals({ cardAttemptsThisHour: 7 })).reasons).toEqual([expect.stringContaining('7 attempts')]);
      expect(assessRisk(signals({ cardAttemptsThisHour: 12 })).reasons).toEqual([expect.stringContaining('12 attempts')]);
    });

    it('more than 10 attempts is riskier than more than 5', () => {
      expect(assessRisk(signals({ cardAttemptsThisHour: 11 })).score).toBeGreaterThan(assessRisk(signals({ cardAttemptsThisHour: 6 })).score);
    });
  });

  describe('amount vs the merchant mean', () => {
    it.each([
      [5000, 0], // 5×: not more than 5×
      [5001, 15],
      [20_000, 15], // 20×: not more than 20×
      [20_001, 30],
      [500_000, 30],
    ])('amount %i against a mean of 1000 adds %i points', (amount, points) => {
      expect(added({ amount, merchantMeanAmount: 1000 })).toBe(points);
    });

    it('names the ratio', () => {
      expect(assessRisk(signals({ amount: 8000, merchantMeanAmount: 1000 })).reasons).toEqual([expect.stringContaining('8×')]);
    });

    it('gives no signal without merchant history (undefined or zero mean)', () => {
      expect(added({ amount: 900_000, merchantMeanAmount: undefined })).toBe(0);
      expect(added({ amount: 900_000, merchantMeanAmount: 0 })).toBe(0);
    });

    it('does not judge an amount on its own: minor units mean different money in each currency', () => {
      expect(added({ amount: 50_000_000, merchantMeanAmount: undefined })).toBe(0);
    });
  });

  describe('issuer country vs currency', () => {
    it('a French card paying in EUR gives no signal', () => {
      const risk = assessRisk(signals({ cardNumber: FR_CARD, currency: 'EUR' }));
      expect(risk.score).toBe(baseline);
      expect(risk.reasons).toEqual([]);
    });

    it('a French card paying in USD adds points and says why', () => {
      // Act
      const risk = assessRisk(signals({ cardNumber: FR_CARD, currency: 'USD' }));
      // Assess
      expect(risk.score).toBe(baseline + 10);
      expect(risk.reasons).toEqual([expect.stringMatching(/FR.*USD/)]);
    });

    it('a number under 15 digits gives no BIN to read: no issuer country signal', () => {
      // Act: a 13-digit number with the French test card's prefix, paying in USD
      const risk = assessRisk(signals({ cardNumber: '4000002500006', currency: 'USD' }));
      // Assess
      expect(risk.score).toBe(baseline);
      expect(risk.reasons).toEqual([]);
    });

    it('a US card (4242…) paying in EUR adds points, in USD none', () => {
      expect(added({ currency: 'EUR' })).toBe(10);
      expect(added({ currency: 'USD' })).toBe(0);
    });

    it.each([
      ['4000000760000002', 'BRL', 'USD'], // Brazil
      ['4000001240000000', 'CAD', 'EUR'], // Canada
      ['4000008260000000', 'GBP', 'EUR'], // United Kingdom
      ['4000002760000016', 'EUR', 'GBP'], // Germany
      ['4000003920000003', 'JPY', 'USD'], // Japan
    ])('Stripe country card %s: no signal in %s, a signal in %s', (cardNumber, home, foreign) => {
      expect(added({ cardNumber, currency: home })).toBe(0);
      expect(added({ cardNumber, currency: foreign })).toBe(10);
    });

    it('an unknown issuer gives no signal', () => {
      expect(added({ cardNumber: '6200000000000005', currency: 'EUR' })).toBe(0);
      expect(added({ cardNumber: '6200000000000005', currency: 'USD' })).toBe(0);
    });
  });

  describe('customer e-mail', () => {
    it.each(['mailinator.com', 'yopmail.com', 'guerrillamail.com', '10minutemail.com'])('a disposable domain (%s) adds 20 points', (domain) => {
      // Act
      const risk = assessRisk(signals({ customerEmail: `someone@${domain}` }));
      // Assess
      expect(risk.score).toBe(baseline + 20);
      expect(risk.reasons).toEqual([expect.stringContaining(domain)]);
    });

    it('a missing e-mail adds 5 points', () => {
      const risk = assessRisk(signals({ customerEmail: undefined }));
      expect(risk.score).toBe(baseline + 5);
      expect(risk.reasons).toEqual([expect.stringMatching(/e-mail/)]);
    });

    it('an ordinary domain adds nothing', () => {
      expect(added({ customerEmail: 'someone@gmail.com' })).toBe(0);
      expect(added({ customerEmail: 'someone@mail.example.org' })).toBe(0);
    });
  });

  describe('the score', () => {
    it('adds up the signals and explains each one', () => {
      // Prepare: velocity (30) + 10× mean (15) + country (10) + disposable (20)
      const risky = signals({
        cardNumber: FR_CARD,
        currency: 'USD',
        amount: 10_000,
        merchantMeanAmount: 1000,
        customerEmail: 'x@mailinator.com',
        cardAttemptsThisHour: 6,
      });
      // Act
      const risk = assessRisk(risky);
      // Assess
      expect(risk.score).toBe(baseline + 30 + 15 + 10 + 20);
      expect(risk.reasons).toHaveLength(4);
    });

    it('is clamped to 100 when the signals add up to more', () => {
      // Prepare: every signal at its strongest
      const worst = signals({
        cardNumber: FR_CARD,
        currency: 'USD',
        amount: 5_000_000,
        merchantMeanAmount: 1000,
        customerEmail: 'x@mailinator.com',
        cardAttemptsThisHour: 50,
      });
      // Act
      const risk = assessRisk(worst);
      // Assess
      expect(risk.score).toBe(100);
      expect(risk.score).toBeGreaterThanOrEqual(RISK_DECLINE_THRESHOLD);
      expect(risk.reasons.length).toBeGreaterThanOrEqual(4);
    });

    it('is always an integer between 0 and 100', () => {
      // Prepare: every combination of signal levels
      const scores: number[] = [];
      for (const cardNumber of ['4242424242424242', FR_CARD, '6200000000000005', FRAUD_CARD])
        for (const currency of ['USD', 'EUR', 'JPY'])
          for (const amount of [1, 5000, 60_000, 2_000_000])
            for (const merchantMeanAmount of [undefined, 0, 1000])
              for (const customerEmail of [undefined, 'a@example.com', 'a@mailinator.com'])
                for (const cardAttemptsThisHour of [0, 1, 6, 11, 1000])
                  scores.push(assessRisk({ cardNumber, currency, amount, merchantMeanAmount, customerEmail, cardAttemptsThisHour }).score);
      // Assess
      expect(scores.filter((s) => !Number.isInteger(s) || s < 0 || s > 100)).toEqual([]);
      expect(Math.min(...scores)).toBeLessThan(20);
      expect(Math.max(...scores)).toBe(100);
    });
  });
});
