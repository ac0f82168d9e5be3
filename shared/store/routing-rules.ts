import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import type { RuleCondition, RuleField, RuleOperator } from '../model/routing.ts';
import type { Transition } from '../model/state-machines.ts';
import { type Created, db, TABLE } from './client.ts';
import { commit, type Update } from './commit.ts';
import { Int, picklistOf, recordReader, Text } from './item-schemas.ts';
import { routingRuleKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { deleteWithinMerchantCap, putWithinMerchantCap } from './merchants.ts';
import { listPage, merchantSet, merchantSetItems, type Page, type PageQuery } from './pagination.ts';
import { copiesOf } from './routing-copies.ts';

export interface RoutingRuleRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  name: string;
  strategy: 'fixed' | 'smart';
  priority: number;
  conditions: RuleCondition[];
  provider: ProviderName;
  /** `required`: the payments it matches authenticate (3-D Secure) */
  three_d_secure: 'automatic' | 'required';
  status: 'active' | 'disabled';
  created_at: string;
}

/**
 * The rule as the table holds it, checked when read back (see item-schemas.ts). A condition's field and operator
 * were checked against their vocabulary by the request schema on the way in (which the store does not import): here
 * they are checked to be strings.
 */
const ConditionItem = v.object({
  field: v.custom<RuleField>((f) => typeof f === 'string'),
  operator: v.custom<RuleOperator>((o) => typeof o === 'string'),
  value: Text,
});
const RoutingRuleItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  name: Text,
  strategy: picklistOf<RoutingRuleRecord['strategy']>()(['fixed', 'smart']),
  priority: Int,
  conditions: v.array(ConditionItem),
  provider: v.picklist(PROVIDERS),
  three_d_secure: picklistOf<RoutingRuleRecord['three_d_secure']>()(['automatic', 'required']),
  status: picklistOf<RoutingRuleRecord['status']>()(['active', 'disabled']),
  created_at: Text,
});
export const routingRuleOf: (item: Record<string, unknown>) => RoutingRuleRecord = recordReader('routing rule', RoutingRuleItem);

export type RoutingRuleChanges = Partial<
  Pick<RoutingRuleRecord, 'name' | 'strategy' | 'priority' | 'conditions' | 'provider' | 'three_d_secure' | 'status'>
>;

/** How a change goes along ROUTING_RULE: with a transition of its status, or in the states its fields alone may change in. */
export type RoutingRuleStep = { transition: Transition } | { inStates: readonly string[] };

const ruleTarget = (owner: Owner, id: string) => ({
  entity: 'routing_rule' as const,
  id,
  owner: { merchant_id: owner.merchant_id, livemode: owner.livemode },
});

/**
 * Writes a new rule, with its routing copies, unless the merchant already has `max` (counted as `rule_count` on its
 * profile, in the same transaction); undefined then. A rule already stored under this id (a retried create) is
 * answered as it is. A delete (deleteRoutingRule) lowers `rule_count` in the same way.
 */
export async function putRoutingRule(rule: RoutingRuleRecord, max: number): Promise<Created<RoutingRuleRecord> | undefined> {
  const target = ruleTarget(rule, rule.id);
  const copies = copiesOf(target).map((copy) => ({ create: copy, item: { ...rule } }));
  return putWithinMerchantCap({ owner: rule, count: 'rule_count', max }, { create: target, item: { ...rule } }, rule, routingRuleOf, copies);
}

/**
 * Applies the changes (along `step`) to the merchant's rule and its routing copies; undefined when it does not exist
 * (the key holds the merchant).
 */
export async function updateRoutingRule(
  owner: Owner,
  ruleId: string,
  changes: Omit<RoutingRuleChanges, 'status'>,
  step: RoutingRuleStep,
): Promise<RoutingRuleRecord | undefined> {
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  // nothing to change still goes through the same conditional write, so 404 stays 404
  const target = ruleTarget(owner, ruleId);
  const writes = [target, ...copiesOf(target)].map((update): Update => ({ update, ...step, set }));
  if ((await commit({ writes })) !== 'committed') return undefined;
  return getRoutingRule(owner, ruleId);
}

/** The owner's rule by id, read consistently; undefined when there is none (the key holds the merchant and mode). */
export async function getRoutingRule(owner: Owner, ruleId: string): Promise<RoutingRuleRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: routingRuleKeys.item(owner, ruleId), ConsistentRead: true }));
  return out.Item && routingRuleOf(out.Item);
}

/**
 * Deletes the owner's rule for good, with its routing copies (so routing no longer reads it), and frees its place under
 * the cap, in one transaction; false when there is none.
 */
export async function deleteRoutingRule(owner: Owner, ruleId: string): Promise<boolean> {
  const target = ruleTarget(owner, ruleId);
  return deleteWithinMerchantCap(
    owner,
    'rule_count',
    target,
    copiesOf(target).map((copy) => ({ remove: copy })),
  );
}

/** A page of the merchant's rules, newest first, read consistently (a rule just made or changed is in it). */
export async function routingRulePage(owner: Owner, page: PageQuery): Promise<Page<RoutingRuleRecord>> {
  const result = await listPage(merchantSet(routingRuleKeys, owner, { consistent: true }), page);
  return { data: result.data.map(routingRuleOf), has_more: result.has_more };
}

/**
 * Every rule of the owner (at most 50 small items, one partition, usually one page), for the routing engine.
 * `consistent` for the API's own reads (a rule just written is listed); routing may read eventually consistent.
 */
export async function listRoutingRules(owner: Owner, options: { consistent: boolean }): Promise<RoutingRuleRecord[]> {
  return (await merchantSetItems(routingRuleKeys, owner, options)).map(routingRuleOf);
}
