import { FEES, feeOf } from '../providers/fees.ts';
import { type FeeSchedule, PROVIDERS, type ProviderName } from '../providers/types.ts';
import type { AppliedStrategy } from '../model/routing.ts';
import type { ProviderStats } from '../store/routing-stats.ts';
import { type PaymentFacts, type RoutingRule, ruleMatches } from './routing-rules.ts';

/** What a merchant may ask for in `routing`: a strategy, or a provider name to force it. */
export const ROUTING_CHOICES = ['smart', 'rules', 'lowest_cost', 'round_robin', ...PROVIDERS] as const;
export type RoutingChoice = (typeof ROUTING_CHOICES)[number];

export interface RoutePlan {
  strategy: AppliedStrategy;
  /** providers to try, in order; soft failures move to the next one */
  candidates: ProviderName[];
  reason: string;
  /** the matched rule requires 3-D Secure: how the reason names it */
  authenticationRequiredBy?: string;
}

export interface RoutingInput {
  choice: RoutingChoice;
  facts: PaymentFacts;
  /** the merchant's active rules, lowest priority number first */
  rules: readonly RoutingRule[];
  /** recent authorization statistics per provider (the sliding window) */
  stats: Record<ProviderName, ProviderStats>;
  /** [0, 1): exploration draws */
  random: () => number;
  /** a per-merchant sequence number for round robin */
  sequence: number;
  /** each provider's fee schedule (its cheapest eligible account's, see `providerFees`); absent: the standard price */
  fees?: Partial<Record<ProviderName, FeeSchedule>>;
}

/** A provider with little recent history is assumed to approve like this (a prior worth PRIOR_WEIGHT attempts). */
const PRIOR_APPROVAL = 0.9;
const PRIOR_WEIGHT = 10;
const PRIOR_LATENCY_MS = 150;
/** Share of smart decisions that try a random other provider first, so a recovered provider gets traffic back. */
export const EXPLORATION_RATE = 0.05;

export interface ProviderScore {
  provider: ProviderName;
  score: number;
  approvalPct: number;
  latencyMs: number;
  feePct: number;
  attempts: number;
}

/**
 * Smart score: estimated approval rate (%) minus a latency penalty (1 point per 100 ms) minus a cost penalty
 * (2 points per percent of the amount paid in fees). Approval and latency blend recent history with a prior, so
 * old failures age out of the window and an unused provider is not written off.
 */
export function scoreProvider(provider: ProviderName, stats: ProviderStats, amount: number, fees: FeeSchedule = FEES[provider]): ProviderScore {
  const approval = (stats.approvals + PRIOR_APPROVAL * PRIOR_WEIGHT) / (stats.attempts + PRIOR_WEIGHT);
  const latencyMs = (stats.latency_sum + PRIOR_LATENCY_MS * PRIOR_WEIGHT) / (stats.attempts + PRIOR_WEIGHT);
  const feePct = (feeOf(fees, amount) / amount) * 100;
  const score = approval * 100 - latencyMs / 100 - feePct * 2;
  return { provider, score, approvalPct: approval * 100, latencyMs, feePct, attempts: stats.attempts };
}

const describeScore = (s: ProviderScore) =>
  `${s.provider} ${s.score.toFixed(1)} (approval ${s.approvalPct.toFixed(1)}% over ${s.attempts} recent attempts, ${Math.round(s.latencyMs)} ms, fee ${s.feePct.toFixed(2)}%)`;

function smartOrder(providers: readonly ProviderName[], input: RoutingInput): { order: ProviderName[]; reason: string } {
  const scores = providers.map((p) => scoreProvider(p, input.stats[p], input.facts.amount, scheduleOf(p, input))).sort((a, b) => b.score - a.score);
  const [best, ...rest] = scores;
  if (!best) return { order: [], reason: 'no provider is eligible' };
  if (rest.length > 0 && input.random() < EXPLORATION_RATE) {
    const explored = rest[Math.floor(input.random() * rest.length)]!;
    const order = [explored, ...scores.filter((s) => s !== explored)];
    return {
      order: order.map((s) => s.provider),
      reason: `exploring ${explored.provider} (score ${explored.score.toFixed(1)}) ahead of the best score, ${describeScore(best)}, to keep its approval rate current`,
    };
  }
  const others = rest.length ? `; then ${rest.map(describeScore).join(', ')}` : '';
  return { order: scores.map((s) => s.provider), reason: `highest score ${describeScore(best)}${others}` };
}

const scheduleOf = (provider: ProviderName, input: Pick<RoutingInput, 'fees'>): FeeSchedule => input.fees?.[provider] ?? FEES[provider];

/** The provider a routing choice forces, if it names one: then no rule and no strategy is consulted. */
export const forcedProvider = (choice: string): ProviderName | undefined =>
  (PROVIDERS as readonly string[]).includes(choice) ? (choice as ProviderName) : undefined;

/** Decides where a payment goes and why. Pure: everything it needs is in the input. */
export function planRoute(input: RoutingInput): RoutePlan {
  const { choice, facts } = input;
  const provider = forcedProvider(choice);
  if (provider) {
    return { strategy: 'forced', candidates: [provider], reason: `The request forced ${provider}, so no other provider is tried.` };
  }

  const rule = input.rules.find((r) => ruleMatches(r, facts));
  if (rule) {
    const label = `Rule "${rule.name}" (${rule.id}, priority ${rule.priority})`;
    // The rule requires 3-D Secure: the payment authenticates as if its create asked for it (docs/api.md "3-D Secure").
    const requiredBy = rule.three_d_secure === 'required' ? `rule "${rule.name}" (${rule.id})` : undefined;
    const requires = requiredBy ? ', and requires 3-D Secure (the shopper authenticates)' : '';
    const by = requiredBy ? { authenticationRequiredBy: requiredBy } : {};
    if (rule.strategy === 'fixed') {
      return {
        strategy: 'rules',
        candidates: [rule.provider],
        reason: `${label} matched and sends this payment to ${rule.provider} only${requires}.`,
        ...by,
      };
    }
    const rest = smartOrder(
      PROVIDERS.filter((p) => p !== rule.provider),
      input,
    );
    return {
      strategy: 'rules',
      candidates: [rule.provider, ...rest.order],
      reason: `${label} matched and puts ${rule.provider} first${requires}; failover by smart score: ${rest.reason}.`,
      ...by,
    };
  }
  const noRule = choice === 'rules' ? 'No routing rule matched, so smart routing decided: ' : '';

  if (choice === 'lowest_cost') {
    const fees = PROVIDERS.map((p) => ({ p, fee: feeOf(scheduleOf(p, input), facts.amount), schedule: scheduleOf(p, input) })).sort(
      (a, b) => a.fee - b.fee,
    );
    const [cheapest, ...others] = fees;
    const describe = ({ p, fee, schedule }: (typeof fees)[number]) => `${p} ${fee} (${schedule.percent}% + ${schedule.fixed})`;
    return {
      strategy: 'lowest_cost',
      candidates: fees.map((f) => f.p),
      reason: `Lowest cost for ${facts.amount} ${facts.currency}: ${describe(cheapest!)} in minor units, vs ${others.map(describe).join(', ')}.`,
    };
  }
  if (choice === 'round_robin') {
    const start = input.sequence % PROVIDERS.length;
    const order = [...PROVIDERS.slice(start), ...PROVIDERS.slice(0, start)];
    return { strategy: 'round_robin', candidates: order, reason: `Round robin: ${order[0]} is next in turn (${order.join(' → ')}).` };
  }
  const smart = smartOrder(PROVIDERS, input);
  return { strategy: 'smart', candidates: smart.order, reason: `${noRule}Smart routing chose ${smart.order[0]}: ${smart.reason}.` };
}
