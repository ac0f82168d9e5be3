import { describe, expect, it } from 'vitest';
import type { PaymentFacts, RoutingRule } from '../../shared/domain/routing-rules.ts';
import type { RuleCondition } from '../../shared/model/routing.ts';
import { EXPLORATION_RATE, planRoute, type RoutingInput, scoreProvider } from '../../shared/domain/routing.ts';
import { feeFor } from '../../shared/providers/fees.ts';
import { PROVIDERS, type ProviderName } from '../../shared/providers/types.ts';
import type { ProviderStats } from '../../shared/store/routing-stats.ts';

// ---------------------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------------------

const stats = (attempts = 0, approvals = 0, meanLatencyMs = 150): ProviderStats => ({
  attempts,
  approvals,
  latency_sum: attempts * meanLatencyMs,
});

const noHistory = (): Record<ProviderName, ProviderStats> => ({ stripe: stats(), adyen: stats(), braintree: stats() });

const facts = (overrides: Partial<PaymentFacts> = {}): PaymentFacts => ({
  currency: 'EUR',
  amount: 1000,
  card_brand: 'visa',
  card_bin: '42424242',
  customer_email_domain: 'example.com',
  metadata: {},
  ...overrides,
});

const cond = (field: RuleCondition['field'], operator: RuleCondition['operator'], value: string): RuleCondition => ({ field, operator, value });

let ruleCounter = 0;
const rule = (overrides: Partial<RoutingRule> = {}): RoutingRule => {
  ruleCounter += 1;
  return {
    id: `rule_TEST${String(ruleCounter).padStart(4, '0')}`,
    object: 'routing_rule',
    name: `rule ${ruleCounter}`,
    strategy: 'fixed',
    priority: ruleCounter,
    conditions: [],
    provider: 'braintree',
    three_d_secure: 'automatic',
    status: 'active',
    created_at: '2025-01-01T00:00:00.000Z',
    livemode: false,
    ...overrides,
  };
};

/** A draw that never explores (EXPLORATION_RATE is the first value that does not explore). */
const noExploration = () => EXPLORATION_RATE;

const input = (overrides: Partial<RoutingInput> = {}): RoutingInput => ({
  choice: 'smart',
  facts: facts(),
  rules: [],
  stats: noHistory(),
  random: noExploration,
  sequence: 0,
  ...overrides,
});

/** A sequence of draws for `random`, repeating the last one when exhausted. */
const draws = (...values: number[]) => {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
};

/** "One readable sentence": starts with a capital letter, ends with one full stop, no sentence break inside. */
const expectOneSentence = (reason: string) => {
  expect(reason).toMatch(/^[A-Z]/);
  expect(reason).toMatch(/[^.]\.$/);
  expect(reason.slice(0, -1)).not.toMatch(/[.!?](\s|$)/);
};

const scoreOf = (provider: ProviderName, s: ProviderStats, amount: number) => scoreProvider(provider, s, amount).score;

// ---------------------------------------------------------------------------------------------------------------
// planRoute
// ---------------------------------------------------------------------------------------------------------------

describe('planRoute', () => {
  describe('forced provider', () => {
    it.each(PROVIDERS)('routing "%s" tries only that provider, with strategy forced', (provider) => {
      // Act
      const plan = planRoute(input({ choice: provider }));
      // Assess
      expect(plan.strategy).toBe('forced');
      expect(plan.candidates).toEqual([provider]);
      expect(plan.reason).toContain(provider);
      expectOneSentence(plan.reason);
    });

    it('is not overridden by a matching rule or by bad statistics of the forced provider', () => {
      // Prepare
      const rules = [rule({ provider: 'adyen', strategy: 'fixed' })];
      const poorStripe = { ...noHistory(), stripe: stats(100, 0, 2000) };
      // Act
      const plan = planRoute(input({ choice: 'stripe', rules, stats: poorStripe, random: () => 0 }));
      // Assess
      expect(plan).toMatchObject({ strategy: 'forced', candidates: ['stripe'] });
    });
  });

  describe('routing rules', () => {
    it('a matching fixed rule sends the payment to its provider only, naming the rule and its id', () => {
      // Prepare
      const fixed = rule({ name: 'EUR to Braintree', provider: 'braintree', strategy: 'fixed', conditions: [cond('currency', 'equals', 'EUR')] });
      // Act
      const plan = planRoute(input({ rules: [fixed] }));
      // Assess
      expect(plan.strategy).toBe('rules');
      expect(plan.candidates).toEqual(['braintree']);
      expect(plan.reason).toContain('EUR to Braintree');
      expect(plan.reason).toContain(fixed.id);
      expectOneSentence(plan.reason);
    });

    it('a matching smart rule puts its provider first and keeps the others for failover', () => {
      // Prepare: with no history at 1000, adyen has the best score; the rule prefers braintree (the worst score)
      const smart = rule({ name: 'prefer Braintree', provider: 'braintree', strategy: 'smart', conditions: [cond('amount', 'greater_than', '500')] });
      // Act
      const plan = planRoute(input({ rules: [smart] }));
      // Assess
      expect(plan.strategy).toBe('rules');
      expect(plan.candidates[0]).toBe('braintree');
      expect([...plan.candidates].sort()).toEqual([...PROVIDERS].sort());
      expect(plan.candidates).toEqual(['braintree', 'adyen', 'stripe']); // the rest by smart score
      expect(plan.reason).toContain('prefer Braintree');
      expect(plan.reason).toContain(smart.id);
      expectOneSentence(plan.reason);
    });

    it('keeps the smart rule provider first even when the draw explores', () => {
      const smart = rule({ provider: 'stripe', strategy: 'smart' });
      const plan = planRoute(input({ rules: [smart], random: () => 0 }));
      expect(plan.candidates[0]).toBe('stripe');
      expect(plan.candidates).toHaveLength(3);
      expect(new Set(plan.candidates).size).toBe(3);
    });

    it('the first matching rule in the given order wins; a non-matching rule before it is skipped', () => {
      // Prepare
      const usdOnly = rule({ name: 'USD', priority: 1, provider: 'stripe', conditions: [cond('currency', 'equals', 'USD')] });
      const eur = rule({ name: 'EUR', priority: 2, provider: 'adyen', conditions: [cond('currency', 'equals', 'EUR')] });
      const catchAll = rule({ name: 'everything', priority: 3, provider: 'braintree', conditions: [] });
      // Act
      const eurPlan = planRoute(input({ rules: [usdOnly, eur, catchAll] }));
      const gbpPlan = planRoute(input({ rules: [usdOnly, eur, catchAll], facts: facts({ currency: 'GBP' }) }));
      const usdPlan = planRoute(input({ rules: [usdOnly, eur, catchAll], facts: facts({ currency: 'USD' }) }));
      // Assess
      expect(eurPlan.candidates).toEqual(['adyen']);
      expect(eurPlan.reason).toContain(eur.id);
      expect(gbpPlan.candidates).toEqual(['braintree']);
      expect(gbpPlan.reason).toContain(catchAll.id);
      expect(usdPlan.candidates).toEqual(['stripe']);
    });

    it('rules are evaluated before the requested strategy (lowest_cost, round_robin, smart)', () => {
      const fixed = rule({ provider: 'braintree', strategy: 'fixed' });
      for (const choice of ['smart', 'rules', 'lowest_cost', 'round_robin'] as const) {
        const plan = planRoute(input({ choice, rules: [fixed], sequence: 1 }));
        expect(plan, choice).toMatchObject({ strategy: 'rules', candidates: ['braintree'] });
      }
    });

    it('with routing "rules" and no matching rule, falls back to smart and says no rule matched', () => {
      // Prepare
      const usdOnly = rule({ provider: 'stripe', conditions: [cond('currency', 'equals', 'USD')] });
      // Act
      const plan = planRoute(input({ choice: 'rules', rules: [usdOnly] }));
      // Assess
      expect(plan.strategy).toBe('smart');
      expect(plan.reason).toMatch(/no routing rule matched/i);
      expect(plan.candidates).toEqual(planRoute(input({ choice: 'smart' })).candidates);
      expectOneSentence(plan.reason);
    });

    it('with routing "rules" and no rules at all, also falls back to smart', () => {
      const plan = planRoute(input({ choice: 'rules', rules: [] }));
      expect(plan.strategy).toBe('smart');
      expect(plan.reason).toMatch(/no routing rule matched/i);
    });

    it('a matching rule that requires 3-D Secure says so in its one-sentence reason; one that does not, or a forced provider, does not', () => {
      // Prepare
      const eea = rule({
        name: 'EEA cards',
        provider: 'adyen',
        strategy: 'fixed',
        three_d_secure: 'required',
        conditions: [cond('currency', 'equals', 'EUR')],
      });
      const smart = rule({ name: 'prefer Stripe', provider: 'stripe', strategy: 'smart', three_d_secure: 'required' });
      const plain = rule({ provider: 'adyen', strategy: 'fixed' });
      // Act
      const fixedPlan = planRoute(input({ rules: [eea] }));
      const smartPlan = planRoute(input({ rules: [smart] }));
      const plainPlan = planRoute(input({ rules: [plain] }));
      const forced = planRoute(input({ choice: 'stripe', rules: [eea] }));
      // Assess
      expect(fixedPlan).toMatchObject({ candidates: ['adyen'], authenticationRequiredBy: `rule "EEA cards" (${eea.id})` });
      expect(fixedPlan.reason).toContain('requires 3-D Secure');
      expectOneSentence(fixedPlan.reason);
      expect(smartPlan.authenticationRequiredBy).toContain(smart.id);
      expect(smartPlan.reason).toMatch(/puts stripe first, and requires 3-D Secure .*; failover by smart score/);
      expectOneSentence(smartPlan.reason);
      expect(plainPlan.authenticationRequiredBy).toBeUndefined();
      expect(plainPlan.reason).not.toContain('3-D Secure');
      expect(forced.authenticationRequiredBy).toBeUndefined();
    });

    it('with routing "smart" and no matching rule, does not talk about rules', () => {
      const plan = planRoute(input({ choice: 'smart', rules: [rule({ conditions: [cond('currency', 'equals', 'USD')] })] }));
      expect(plan.strategy).toBe('smart');
      expect(plan.reason).not.toMatch(/rule/i);
    });
  });

  describe('lowest_cost', () => {
    it('picks adyen for a small amount (1000) and orders every provider by fee', () => {
      // Act
      const plan = planRoute(input({ choice: 'lowest_cost', facts: facts({ amount: 1000 }) }));
      // Assess: adyen 41, stripe 59, braintree 73
      expect(plan.strategy).toBe('lowest_cost');
      expect(plan.candidates).toEqual(['adyen', 'stripe', 'braintree']);
      expect(plan.reason).toContain('adyen 41');
      expect(plan.reason).toContain('stripe 59');
      expect(plan.reason).toContain('braintree 73');
      expectOneSentence(plan.reason);
    });

    it('picks braintree for a large amount (100000) and orders every provider by fee', () => {
      // Act
      const plan = planRoute(input({ choice: 'lowest_cost', facts: facts({ amount: 100_000 }) }));
      // Assess: braintree 2449, stripe 2930, adyen 3011
      expect(plan.candidates).toEqual(['braintree', 'stripe', 'adyen']);
      expect(plan.reason).toContain('braintree 2449');
      expect(plan.reason).toContain('stripe 2930');
      expect(plan.reason).toContain('adyen 3011');
      expectOneSentence(plan.reason);
    });

    it.each([1, 50, 999, 1000, 5000, 19_000, 25_000, 100_000, 99_999_999])('orders by non-decreasing fee at amount %i', (amount) => {
      const plan = planRoute(input({ choice: 'lowest_cost', facts: facts({ amount }) }));
      const fees = plan.candidates.map((p) => feeFor(p, amount));
      expect(plan.candidates).toHaveLength(3);
      expect(fees).toEqual([...fees].sort((a, b) => a - b));
      expect(fees[0]).toBe(Math.min(...PROVIDERS.map((p) => feeFor(p, amount))));
    });

    it('ignores statistics and exploration draws', () => {
      const poorAdyen = { ...noHistory(), adyen: stats(100, 0) };
      const plan = planRoute(input({ choice: 'lowest_cost', stats: poorAdyen, random: () => 0 }));
      expect(plan.candidates[0]).toBe('adyen');
    });
  });

  describe('round_robin', () => {
    it('rotates the first provider through all three as the sequence increases', () => {
      // Act
      const plans = [0, 1, 2, 3, 4, 5].map((sequence) => planRoute(input({ choice: 'round_robin', sequence })));
      // Assess
      expect(plans.map((p) => p.strategy)).toEqual(Array(6).fill('round_robin'));
      expect(plans.map((p) => p.candidates[0])).toEqual(['stripe', 'adyen', 'braintree', 'stripe', 'adyen', 'braintree']);
      expect(plans[1]!.candidates).toEqual(['adyen', 'braintree', 'stripe']);
      for (const plan of plans) {
        expect(new Set(plan.candidates)).toEqual(new Set(PROVIDERS));
        expect(plan.reason).toContain(plan.candidates[0]);
        expectOneSentence(plan.reason);
      }
    });

    it('gives each provider an equal share of consecutive payments', () => {
      const firsts = Array.from({ length: 300 }, (_, sequence) => planRoute(input({ choice: 'round_robin', sequence })).candidates[0]);
      for (const p of PROVIDERS) expect(firsts.filter((f) => f === p)).toHaveLength(100);
    });
  });

  describe('smart', () => {
    it('orders providers by score, best first', () => {
      // Prepare: stripe approves almost everything quickly; braintree is average; adyen declines most attempts
      const history = { stripe: stats(100, 99, 100), braintree: stats(100, 90, 150), adyen: stats(100, 40, 150) };
      // Act
      const plan = planRoute(input({ stats: history, facts: facts({ amount: 5000 }) }));
      // Assess
      const scores = plan.candidates.map((p) => scoreOf(p, history[p], 5000));
      expect(plan.strategy).toBe('smart');
      expect(plan.candidates).toEqual(['stripe', 'braintree', 'adyen']);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });

    it('drops a provider with a bad recent approval rate to last', () => {
      // Prepare: adyen is the best with no history at 1000 …
      expect(planRoute(input()).candidates[0]).toBe('adyen');
      const history = { ...noHistory(), adyen: stats(50, 10) };
      // Act: … until its recent attempts mostly fail
      const plan = planRoute(input({ stats: history }));
      // Assess
      expect(plan.candidates.at(-1)).toBe('adyen');
      expect(plan.candidates).toHaveLength(3);
    });

    it('explains the choice in one sentence naming the chosen provider and every score', () => {
      // Act
      const plan = planRoute(input());
      // Assess
      const chosen = plan.candidates[0]!;
      expectOneSentence(plan.reason);
      expect(plan.reason).toContain(`chose ${chosen}`);
      for (const p of PROVIDERS) expect(plan.reason).toContain(`${p} ${scoreOf(p, stats(), 1000).toFixed(1)}`);
    });

    describe('exploration', () => {
      it('with the draw at 0, tries a provider other than the best first and says it is exploring', () => {
        // Prepare
        const best = planRoute(input()).candidates[0]!;
        // Act
        const plan = planRoute(input({ random: () => 0 }));
        // Assess
        expect(plan.strategy).toBe('smart');
        expect(plan.candidates[0]).not.toBe(best);
        expect(plan.candidates).toContain(best);
        expect(new Set(plan.candidates)).toEqual(new Set(PROVIDERS));
        expect(plan.reason).toContain(`exploring ${plan.candidates[0]}`);
        expect(plan.reason).toContain(best);
        expectOneSentence(plan.reason);
      });

      it('keeps the best provider as the first failover after the explored one', () => {
        const best = planRoute(input()).candidates[0]!;
        const plan = planRoute(input({ random: draws(0, 0.99) }));
        expect(plan.candidates[0]).not.toBe(best);
        expect(plan.candidates[1]).toBe(best);
      });

      it('can explore any of the non-best providers, depending on the second draw', () => {
        const best = planRoute(input()).candidates[0]!;
        const explored = new Set([0, 0.3, 0.6, 0.99].map((second) => planRoute(input({ random: draws(0, second) })).candidates[0]));
        expect(explored).toEqual(new Set(PROVIDERS.filter((p) => p !== best)));
      });

      it('explores a provider that is currently written off, so its recovery can be noticed', () => {
        const history = { ...noHistory(), adyen: stats(100, 0) };
        const plan = planRoute(input({ stats: history, random: draws(0, 0.99) }));
        expect(plan.candidates[0]).toBe('adyen');
        expect(plan.reason).toContain('exploring adyen');
      });

      it.each([EXPLORATION_RATE, 0.5, 0.999])('does not explore with the draw at %s', (value) => {
        // Act
        const plan = planRoute(input({ random: () => value }));
        // Assess
        expect(plan.candidates).toEqual(['adyen', 'stripe', 'braintree']);
        expect(plan.reason).not.toMatch(/exploring/i);
      });

      it('explores just below EXPLORATION_RATE', () => {
        const plan = planRoute(input({ random: draws(EXPLORATION_RATE - 1e-9, 0) }));
        expect(plan.candidates[0]).not.toBe('adyen');
        expect(plan.reason).toMatch(/exploring/);
      });

      it('is a small share of decisions', () => {
        expect(EXPLORATION_RATE).toBeGreaterThan(0);
        expect(EXPLORATION_RATE).toBeLessThan(0.2);
      });
    });

    it('gives a provider back its place as its poor statistics leave the window (the prior)', () => {
      // Prepare: adyen failed a lot, then the failures age out of the sliding window
      const windows = [stats(60, 0), stats(30, 0), stats(10, 0), stats(0, 0)];
      // Act
      const scores = windows.map((s) => scoreOf('adyen', s, 1000));
      const plans = windows.map((s) => planRoute(input({ stats: { ...noHistory(), adyen: s } })));
      // Assess
      expect(scores).toEqual([...scores].sort((a, b) => a - b));
      expect(new Set(scores).size).toBe(scores.length);
      expect(scores.at(-1)).toBe(scoreOf('adyen', stats(), 1000));
      expect(plans[0]!.candidates.at(-1)).toBe('adyen');
      expect(plans.at(-1)!.candidates[0]).toBe('adyen');
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// scoreProvider
// ---------------------------------------------------------------------------------------------------------------

describe('scoreProvider', () => {
  it('assumes a 90% approval rate without history', () => {
    const s = scoreProvider('stripe', stats(), 1000);
    expect(s.approvalPct).toBeCloseTo(90, 10);
    expect(s.attempts).toBe(0);
  });

  it('blends recent history with the 90% prior', () => {
    // Act
    const allFailed = scoreProvider('stripe', stats(10, 0), 1000);
    const allApproved = scoreProvider('stripe', stats(10, 10), 1000);
    const longFailure = scoreProvider('stripe', stats(10_000, 0), 1000);
    // Assess: the prior weighs 10 attempts, so 10 failures halve the 90%, 10 approvals move it halfway to 100%
    expect(allFailed.approvalPct).toBeCloseTo(45, 6);
    expect(allApproved.approvalPct).toBeCloseTo(95, 6);
    expect(longFailure.approvalPct).toBeLessThan(1);
    expect(longFailure.approvalPct).toBeGreaterThan(0);
    expect(allFailed.attempts).toBe(10);
  });

  it('moves towards the observed rate as attempts grow', () => {
    const rates = [0, 10, 100, 1000].map((n) => scoreProvider('adyen', stats(n, n / 2), 1000).approvalPct);
    expect(rates).toEqual([...rates].sort((a, b) => b - a));
    expect(rates.at(-1)).toBeCloseTo(50, 0);
  });

  it('a better approval rate gives a better score, other things equal', () => {
    expect(scoreOf('stripe', stats(50, 50), 1000)).toBeGreaterThan(scoreOf('stripe', stats(50, 40), 1000));
  });

  it('lowers the score with latency, by 1 point per 100 ms', () => {
    // Prepare: the same approvals, different mean latency over a long window
    const fast = scoreProvider('stripe', stats(1000, 900, 100), 1000);
    const slow = scoreProvider('stripe', stats(1000, 900, 1100), 1000);
    // Assess
    expect(slow.latencyMs).toBeGreaterThan(fast.latencyMs);
    expect(slow.score).toBeLessThan(fast.score);
    expect(fast.score - slow.score).toBeCloseTo((slow.latencyMs - fast.latencyMs) / 100, 6);
  });

  it('blends latency with a prior too, so an unused provider is not assumed instant', () => {
    expect(scoreProvider('stripe', stats(), 1000).latencyMs).toBeGreaterThan(0);
    expect(scoreProvider('stripe', stats(10, 9, 50), 1000).latencyMs).toBeGreaterThan(50);
  });

  it('lowers the score with the fee, by 2 points per percent of the amount', () => {
    // Prepare: the same statistics for every provider; at 1000 the fees are adyen 4.1%, stripe 5.9%, braintree 7.3%
    const [adyen, stripe, braintree] = (['adyen', 'stripe', 'braintree'] as const).map((p) => scoreProvider(p, stats(), 1000));
    // Assess
    expect(adyen!.feePct).toBeCloseTo(4.1, 6);
    expect(stripe!.feePct).toBeCloseTo(5.9, 6);
    expect(braintree!.feePct).toBeCloseTo(7.3, 6);
    expect(adyen!.score).toBeGreaterThan(stripe!.score);
    expect(stripe!.score).toBeGreaterThan(braintree!.score);
    expect(adyen!.score - stripe!.score).toBeCloseTo(2 * (5.9 - 4.1), 6);
  });

  it('the fee penalty depends on the amount (a fixed part weighs more on small payments)', () => {
    const small = scoreProvider('braintree', stats(), 500);
    const large = scoreProvider('braintree', stats(), 500_000);
    expect(small.feePct).toBeGreaterThan(large.feePct);
    expect(small.score).toBeLessThan(large.score);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// feeFor (shared/providers/fees.ts): the prices lowest_cost and the smart fee penalty use
// ---------------------------------------------------------------------------------------------------------------

describe('feeFor', () => {
  it.each([
    // provider, amount, fee: percent of the amount plus the fixed part, rounded half up to a minor unit
    ['stripe', 1000, 59], // 29 + 30
    ['adyen', 1000, 41], // 30 + 11
    ['braintree', 1000, 73], // 24 + 49
    ['stripe', 100_000, 2930],
    ['adyen', 100_000, 3011],
    ['braintree', 100_000, 2449],
    ['stripe', 500, 45], // 14.5 + 30 = 44.5 → 45 (half up)
    ['stripe', 1500, 74], // 43.5 + 30 = 73.5 → 74
    ['adyen', 50, 13], // 1.5 + 11 = 12.5 → 13
    ['adyen', 150, 16], // 4.5 + 11 = 15.5 → 16
    ['stripe', 10, 30], // 0.29 + 30 → 30
    ['stripe', 20, 31], // 0.58 + 30 → 31
    ['adyen', 16, 11], // 0.48 + 11 → 11
    ['adyen', 17, 12], // 0.51 + 11 → 12
    ['braintree', 20, 49], // 0.48 + 49 → 49
    ['braintree', 21, 50], // 0.504 + 49 → 50
    ['braintree', 1, 49],
  ] as const)('%s on %i → %i', (provider, amount, fee) => {
    expect(feeFor(provider, amount)).toBe(fee);
  });

  it('rounds exact halves up for every amount (checked against integer arithmetic)', () => {
    // Prepare: percents in tenths, so the exact fee is (amount × tenths + fixed × 1000) / 1000
    const schedule = { stripe: [29, 30], adyen: [30, 11], braintree: [24, 49] } as const;
    const wrong: string[] = [];
    // Act
    for (const provider of PROVIDERS) {
      const [tenths, fixed] = schedule[provider];
      for (let amount = 1; amount <= 100_000; amount++) {
        const expected = Math.floor((amount * tenths + 500) / 1000) + fixed;
        if (feeFor(provider, amount) !== expected) wrong.push(`${provider} ${amount}: ${feeFor(provider, amount)} ≠ ${expected}`);
      }
    }
    // Assess
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('returns integers (minor units)', () => {
    for (const provider of PROVIDERS)
      for (const amount of [1, 7, 333, 12_345, 99_999_999]) expect(Number.isInteger(feeFor(provider, amount))).toBe(true);
  });
});
