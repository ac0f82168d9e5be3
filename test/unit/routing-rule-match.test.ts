import { describe, expect, it } from 'vitest';
import { type PaymentFacts, compareRules, ruleMatches } from '../../shared/domain/routing-rules.ts';
import type { RuleCondition } from '../../shared/model/routing.ts';

const facts = (overrides: Partial<PaymentFacts> = {}): PaymentFacts => ({
  currency: 'EUR',
  amount: 5000,
  card_brand: 'visa',
  card_bin: '42424242',
  customer_email_domain: 'example.com',
  metadata: { channel: 'web', tier: 'gold' },
  ...overrides,
});

const when = (...conditions: RuleCondition[]) => ({ conditions });
const c = (field: RuleCondition['field'], operator: RuleCondition['operator'], value: string): RuleCondition => ({ field, operator, value });

describe('ruleMatches', () => {
  it('matches every payment when the rule has no conditions', () => {
    // Prepare
    const catchAll = when();
    // Act
    const matched = [facts(), facts({ card_brand: undefined, metadata: {} })].map((f) => ruleMatches(catchAll, f));
    // Assess
    expect(matched).toEqual([true, true]);
  });

  it('needs every condition to hold (AND)', () => {
    const rule = when(c('currency', 'equals', 'EUR'), c('amount', 'greater_than', '1000'));
    expect(ruleMatches(rule, facts())).toBe(true);
    expect(ruleMatches(rule, facts({ amount: 1000 }))).toBe(false);
    expect(ruleMatches(rule, facts({ currency: 'USD' }))).toBe(false);
  });

  describe('currency (case-insensitive)', () => {
    it.each([
      [c('currency', 'equals', 'EUR'), 'EUR', true],
      [c('currency', 'equals', 'eur'), 'EUR', true],
      [c('currency', 'equals', 'EUR'), 'eur', true],
      [c('currency', 'equals', 'USD'), 'EUR', false],
      [c('currency', 'not_equals', 'USD'), 'EUR', true],
      [c('currency', 'not_equals', 'eur'), 'EUR', false],
      [c('currency', 'in', 'USD,EUR,GBP'), 'EUR', true],
      [c('currency', 'in', 'usd, eur'), 'EUR', true],
      [c('currency', 'in', 'USD,GBP'), 'EUR', false],
      [c('currency', 'not_in', 'USD,GBP'), 'EUR', true],
      [c('currency', 'not_in', 'USD,EUR'), 'EUR', false],
      [c('currency', 'contains', 'u'), 'EUR', true],
      [c('currency', 'contains', 'X'), 'EUR', false],
    ])('%o with currency %s → %s', (condition, currency, expected) => {
      expect(ruleMatches(when(condition), facts({ currency }))).toBe(expected);
    });
  });

  describe('amount (integers)', () => {
    it.each([
      [c('amount', 'equals', '5000'), true],
      [c('amount', 'equals', '5001'), false],
      [c('amount', 'not_equals', '5000'), false],
      [c('amount', 'not_equals', '1'), true],
      [c('amount', 'in', '100,5000'), true],
      [c('amount', 'in', '100,200'), false],
      [c('amount', 'not_in', '100,200'), true],
      [c('amount', 'not_in', '5000'), false],
      [c('amount', 'greater_than', '4999'), true],
      [c('amount', 'greater_than', '5000'), false],
      [c('amount', 'greater_than_or_equal', '5000'), true],
      [c('amount', 'greater_than_or_equal', '5001'), false],
      [c('amount', 'less_than', '5001'), true],
      [c('amount', 'less_than', '5000'), false],
      [c('amount', 'less_than_or_equal', '5000'), true],
      [c('amount', 'less_than_or_equal', '4999'), false],
      [c('amount', 'contains', '50'), true],
      [c('amount', 'contains', '7'), false],
    ])('%o with amount 5000 → %s', (condition, expected) => {
      expect(ruleMatches(when(condition), facts({ amount: 5000 }))).toBe(expected);
    });

    it('compares numbers, not text (10000 > 9000)', () => {
      expect(ruleMatches(when(c('amount', 'greater_than', '9000')), facts({ amount: 10000 }))).toBe(true);
      expect(ruleMatches(when(c('amount', 'less_than', '9000')), facts({ amount: 10000 }))).toBe(false);
    });

    it('never matches a numeric operator against a non-numeric value', () => {
      expect(ruleMatches(when(c('amount', 'greater_than', 'lots')), facts())).toBe(false);
      expect(ruleMatches(when(c('amount', 'less_than', '')), facts())).toBe(false);
    });
  });

  describe('card_brand (case-insensitive)', () => {
    it.each([
      [c('card_brand', 'equals', 'visa'), 'visa', true],
      [c('card_brand', 'equals', 'VISA'), 'visa', true],
      [c('card_brand', 'equals', 'visa'), 'Visa', true],
      [c('card_brand', 'equals', 'amex'), 'visa', false],
      [c('card_brand', 'not_equals', 'amex'), 'visa', true],
      [c('card_brand', 'not_equals', 'visa'), 'VISA', false],
      [c('card_brand', 'in', 'mastercard,visa'), 'visa', true],
      [c('card_brand', 'in', 'mastercard,amex'), 'visa', false],
      [c('card_brand', 'not_in', 'amex,diners'), 'visa', true],
      [c('card_brand', 'not_in', 'AMEX,VISA'), 'visa', false],
      [c('card_brand', 'contains', 'IS'), 'visa', true],
      [c('card_brand', 'contains', 'card'), 'visa', false],
    ])('%o with brand %s → %s', (condition, card_brand, expected) => {
      expect(ruleMatches(when(condition), facts({ card_brand }))).toBe(expected);
    });
  });

  describe('card_bin (by prefix)', () => {
    it.each([
      [c('card_bin', 'equals', '424242'), '424242', true],
      [c('card_bin', 'equals', '424242'), '42424242', true],
      [c('card_bin', 'equals', '42424242'), '42424242', true],
      [c('card_bin', 'equals', '42424243'), '42424242', false],
      [c('card_bin', 'equals', '42424242'), '424242', false],
      [c('card_bin', 'equals', '555555'), '42424242', false],
      [c('card_bin', 'not_equals', '555555'), '42424242', true],
      [c('card_bin', 'not_equals', '424242'), '42424242', false],
      [c('card_bin', 'in', '555555, 424242'), '42424242', true],
      [c('card_bin', 'in', '555555,400000'), '42424242', false],
      [c('card_bin', 'not_in', '555555,400000'), '42424242', true],
      [c('card_bin', 'not_in', '555555,424242'), '42424242', false],
      [c('card_bin', 'contains', '2424'), '42424242', true],
      [c('card_bin', 'contains', '9'), '42424242', false],
    ])('%o with BIN %s → %s', (condition, card_bin, expected) => {
      expect(ruleMatches(when(condition), facts({ card_bin }))).toBe(expected);
    });
  });

  describe('customer_email_domain (case-insensitive)', () => {
    it.each([
      [c('customer_email_domain', 'equals', 'example.com'), 'example.com', true],
      [c('customer_email_domain', 'equals', 'Example.COM'), 'example.com', true],
      [c('customer_email_domain', 'equals', 'example.com'), 'EXAMPLE.com', true],
      [c('customer_email_domain', 'equals', 'example.org'), 'example.com', false],
      [c('customer_email_domain', 'equals', 'example.com'), 'mail.example.com', false],
      [c('customer_email_domain', 'not_equals', 'example.org'), 'example.com', true],
      [c('customer_email_domain', 'not_equals', 'example.com'), 'example.com', false],
      [c('customer_email_domain', 'in', 'gmail.com,example.com'), 'example.com', true],
      [c('customer_email_domain', 'in', 'gmail.com,yahoo.com'), 'example.com', false],
      [c('customer_email_domain', 'not_in', 'gmail.com,yahoo.com'), 'example.com', true],
      [c('customer_email_domain', 'not_in', 'gmail.com,example.com'), 'example.com', false],
      [c('customer_email_domain', 'contains', 'EXAMPLE'), 'mail.example.com', true],
      [c('customer_email_domain', 'contains', 'gmail'), 'example.com', false],
    ])('%o with domain %s → %s', (condition, customer_email_domain, expected) => {
      expect(ruleMatches(when(condition), facts({ customer_email_domain }))).toBe(expected);
    });
  });

  describe('metadata.<key> (exact)', () => {
    it.each([
      [c('metadata.channel', 'equals', 'web'), true],
      [c('metadata.channel', 'equals', 'Web'), false],
      [c('metadata.channel', 'equals', 'app'), false],
      [c('metadata.channel', 'not_equals', 'app'), true],
      [c('metadata.channel', 'not_equals', 'web'), false],
      [c('metadata.channel', 'in', 'app,web'), true],
      [c('metadata.channel', 'in', 'app,WEB'), false],
      [c('metadata.channel', 'not_in', 'app,pos'), true],
      [c('metadata.channel', 'not_in', 'app,web'), false],
      [c('metadata.tier', 'contains', 'ol'), true],
      [c('metadata.tier', 'contains', 'OL'), false],
      [c('metadata.tier', 'greater_than', '1'), false],
    ])('%o with {channel: web, tier: gold} → %s', (condition, expected) => {
      expect(ruleMatches(when(condition), facts())).toBe(expected);
    });

    it('compares a numeric-looking metadata value as a number with the numeric operators', () => {
      const f = facts({ metadata: { score: '75' } });
      expect(ruleMatches(when(c('metadata.score', 'greater_than', '70')), f)).toBe(true);
      expect(ruleMatches(when(c('metadata.score', 'less_than_or_equal', '70')), f)).toBe(false);
    });

    it('reads a key with dots and does not look at inherited properties', () => {
      expect(ruleMatches(when(c('metadata.order.source', 'equals', 'api')), facts({ metadata: { 'order.source': 'api' } }))).toBe(true);
      expect(ruleMatches(when(c('metadata.constructor', 'contains', 'function')), facts({ metadata: {} }))).toBe(false);
      expect(ruleMatches(when(c('metadata.toString', 'not_equals', 'x')), facts({ metadata: {} }))).toBe(true);
    });
  });

  describe('a missing fact', () => {
    const missing: Array<[string, RuleCondition['field'], Partial<PaymentFacts>]> = [
      ['no card brand', 'card_brand', { card_brand: undefined }],
      ['no BIN', 'card_bin', { card_bin: undefined }],
      ['no customer e-mail', 'customer_email_domain', { customer_email_domain: undefined }],
      ['an empty customer e-mail domain', 'customer_email_domain', { customer_email_domain: '' }],
      ['a metadata key not sent', 'metadata.campaign', { metadata: { channel: 'web' } }],
    ];

    it.each(missing)('with %s, never matches equals, in, contains or a numeric operator', (_case, field, overrides) => {
      const f = facts(overrides);
      for (const operator of ['equals', 'in', 'contains', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal'] as const) {
        expect(ruleMatches(when(c(field, operator, '0')), f), operator).toBe(false);
      }
    });

    it.each(missing)('with %s, always matches not_equals and not_in', (_case, field, overrides) => {
      const f = facts(overrides);
      expect(ruleMatches(when(c(field, 'not_equals', 'anything')), f)).toBe(true);
      expect(ruleMatches(when(c(field, 'not_in', 'a,b')), f)).toBe(true);
    });

    it('makes the whole rule fail when a positive condition is on it', () => {
      const rule = when(c('currency', 'equals', 'EUR'), c('metadata.campaign', 'equals', 'spring'));
      expect(ruleMatches(rule, facts())).toBe(false);
    });
  });
});

describe('compareRules', () => {
  it('orders by priority, then creation time, then id', () => {
    // Prepare
    const rules = [
      { id: 'rul_c', priority: 10, created_at: '2026-01-01T00:00:00.000Z' },
      { id: 'rul_b', priority: 10, created_at: '2026-01-01T00:00:00.000Z' },
      { id: 'rul_a', priority: 10, created_at: '2026-01-02T00:00:00.000Z' },
      { id: 'rul_z', priority: 0, created_at: '2026-02-01T00:00:00.000Z' },
      { id: 'rul_y', priority: 100, created_at: '2025-01-01T00:00:00.000Z' },
    ];
    // Act
    const sorted = [...rules].sort(compareRules).map((r) => r.id);
    // Assess
    expect(sorted).toEqual(['rul_z', 'rul_b', 'rul_c', 'rul_a', 'rul_y']);
  });
});
