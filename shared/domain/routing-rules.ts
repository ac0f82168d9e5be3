import type { ProviderName } from '../providers/types.ts';
import { listItems, metadataKeyOf } from '../schemas/routing-rules.ts';
import { NUMERIC_OPERATORS, type RuleCondition, type RuleField, type RuleOperator } from '../model/routing.ts';
import * as routingRules from '../store/routing-rules.ts';
import type { RoutingRuleChanges, RoutingRuleRecord } from '../store/routing-rules.ts';
import type { PageQuery } from '../store/pagination.ts';
import { BadRequest, NotFound } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { ROUTING_RULE } from '../model/state-machines.ts';
import { type Merchant, ownerOf } from './auth.ts';

/** At most this many rules per merchant (active and disabled alike); the next create answers 400 `too_many_rules`. */
export const MAX_RULES_PER_MERCHANT = 50;

/** A routing rule as the API returns it and the routing engine reads it. */
export type RoutingRule = Omit<RoutingRuleRecord, 'merchant_id'> & { object: 'routing_rule' };

/** What the conditions of a rule are evaluated against: the facts of one payment. */
export interface PaymentFacts {
  /** uppercase ISO 4217 code */
  currency: string;
  /** minor units */
  amount: number;
  card_brand?: string;
  /** the card number's first digits (6 or 8) */
  card_bin?: string;
  customer_email_domain?: string;
  metadata: Record<string, string>;
}

export interface NewRoutingRule {
  name: string;
  provider: ProviderName;
  strategy: 'fixed' | 'smart';
  priority: number;
  conditions: RuleCondition[];
  /** default `automatic` */
  three_d_secure?: 'automatic' | 'required';
}

const view = (r: RoutingRuleRecord): RoutingRule => ({
  id: r.id,
  object: 'routing_rule',
  livemode: r.livemode,
  name: r.name,
  strategy: r.strategy,
  priority: r.priority,
  conditions: r.conditions,
  provider: r.provider,
  three_d_secure: r.three_d_secure,
  status: r.status,
  created_at: r.created_at,
});

/** Evaluation order: lower priority number first, then the older rule, then the id (ULIDs sort by time). */
export const compareRules = (
  a: Pick<RoutingRule, 'priority' | 'created_at' | 'id'>,
  b: Pick<RoutingRule, 'priority' | 'created_at' | 'id'>,
): number =>
  a.priority - b.priority || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A retried create (same origin) answers the rule its first run created, and counts once against the cap. */
export async function createRoutingRule(merchant: Merchant, input: NewRoutingRule, origin: Origin = freshOrigin()): Promise<RoutingRule> {
  const rule: RoutingRuleRecord = {
    id: idFor('rule', origin),
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    name: input.name,
    strategy: input.strategy,
    priority: input.priority,
    conditions: input.conditions,
    provider: input.provider,
    three_d_secure: input.three_d_secure ?? 'automatic',
    status: 'active',
    created_at: new Date(origin.at).toISOString(),
  };
  const put = await routingRules.putRoutingRule(rule, MAX_RULES_PER_MERCHANT);
  if (!put) throw new BadRequest('too_many_rules');
  return view(put.record);
}

export async function updateRoutingRule(merchant: Merchant, ruleId: string, changes: RoutingRuleChanges): Promise<RoutingRule> {
  const { status, ...fields } = changes;
  // fields alone change in any state (a rule has no final one)
  const step = status ? { transition: ROUTING_RULE[status === 'active' ? 'enable' : 'disable'] } : { inStates: ROUTING_RULE.disable.from };
  const rule = await routingRules.updateRoutingRule(ownerOf(merchant), ruleId, fields, step);
  if (!rule) throw new NotFound();
  return view(rule);
}

export async function getRoutingRule(merchant: Merchant, ruleId: string): Promise<RoutingRule> {
  const rule = await routingRules.getRoutingRule(ownerOf(merchant), ruleId);
  if (!rule) throw new NotFound();
  return view(rule);
}

/** Deletes the rule for good: it no longer routes, is no longer listed, and frees its place under the cap. */
export async function deleteRoutingRule(merchant: Merchant, ruleId: string) {
  if (!(await routingRules.deleteRoutingRule(ownerOf(merchant), ruleId))) throw new NotFound();
  return { id: ruleId, object: 'routing_rule' as const, deleted: true as const };
}

/**
 * The merchant's rules, active and disabled, newest first like every list (cursor pages); each carries the
 * `priority` that orders evaluation (lowest first, then oldest first).
 */
export async function listRoutingRules(merchant: Merchant, page: PageQuery) {
  const result = await routingRules.routingRulePage(ownerOf(merchant), page);
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}

/** The active ones of the rules routing read (store/routing-setup.ts), in evaluation order. */
export function activeRules(rules: readonly RoutingRuleRecord[]): RoutingRule[] {
  return rules
    .filter((r) => r.status === 'active')
    .map(view)
    .sort(compareRules);
}

/**
 * Whether a payment matches a rule: every condition holds (a rule without conditions matches every payment). A missing
 * fact never satisfies `equals`, `in`, `contains` or a numeric operator, and always satisfies `not_equals` and `not_in`.
 * `currency`, `card_brand` and the e-mail domain compare case-insensitively, metadata exactly; `card_bin` by prefix (a
 * 6-digit rule matches the 8-digit BIN of its range); `amount` and the numeric operators as numbers (a non-numeric side
 * never matches); `in`/`not_in` read a comma list, items trimmed; `contains` is a substring test.
 */
export function ruleMatches(rule: Pick<RoutingRule, 'conditions'>, facts: PaymentFacts): boolean {
  return rule.conditions.every((condition) => conditionHolds(condition, facts));
}

const CASE_INSENSITIVE: ReadonlySet<string> = new Set(['currency', 'card_brand', 'customer_email_domain']);
const NUMERIC: ReadonlySet<string> = new Set(NUMERIC_OPERATORS);

function factOf(field: RuleField, facts: PaymentFacts): string | number | undefined {
  const key = metadataKeyOf(field);
  if (key !== undefined) return Object.hasOwn(facts.metadata ?? {}, key) ? facts.metadata[key] : undefined;
  switch (field) {
    case 'currency':
      return facts.currency;
    case 'amount':
      return facts.amount;
    case 'card_brand':
      return facts.card_brand;
    case 'card_bin':
      return facts.card_bin;
    case 'customer_email_domain':
      return facts.customer_email_domain;
    default:
      return undefined;
  }
}

function conditionHolds({ field, operator, value }: RuleCondition, facts: PaymentFacts): boolean {
  const fact = factOf(field, facts);
  if (fact === undefined || fact === null || fact === '') return operator === 'not_equals' || operator === 'not_in';
  const norm = (s: string) => (CASE_INSENSITIVE.has(field) ? s.toLowerCase() : s);
  const factText = norm(String(fact));
  const same = (expected: string): boolean => {
    if (field === 'amount') return isNumeric(expected) && Number(fact) === Number(expected);
    if (field === 'card_bin') return expected !== '' && factText.startsWith(expected);
    return factText === norm(expected);
  };
  if (NUMERIC.has(operator)) return compareNumbers(operator, fact, value);
  switch (operator) {
    case 'equals':
      return same(value.trim());
    case 'not_equals':
      return !same(value.trim());
    case 'in':
      return listItems(value).some(same);
    case 'not_in':
      return !listItems(value).some(same);
    case 'contains':
      return factText.includes(norm(value.trim()));
    default:
      return false;
  }
}

const isNumeric = (s: string): boolean => s.trim() !== '' && Number.isFinite(Number(s));

function compareNumbers(operator: RuleOperator, fact: string | number, value: string): boolean {
  if (!isNumeric(String(fact)) || !isNumeric(value)) return false;
  const a = Number(fact);
  const b = Number(value);
  switch (operator) {
    case 'greater_than':
      return a > b;
    case 'greater_than_or_equal':
      return a >= b;
    case 'less_than':
      return a < b;
    case 'less_than_or_equal':
      return a <= b;
    default:
      return false;
  }
}
