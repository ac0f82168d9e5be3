import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import type { RuleCondition, RuleField, RuleOperator } from '../model/routing.ts';
import type { Transition } from '../model/state-machines.ts';
import { assignments, statusIn } from './expressions.ts';
import { conditionalWrite, type Created, db, TABLE } from './client.ts';
import { Int, picklistOf, recordReader, Text } from './item-schemas.ts';
import { routingRuleKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { deleteWithinMerchantCap, putWithinMerchantCap } from './merchants.ts';
import { listPage, merchantSet, merchantSetItems, type Page, type PageQuery } from './pagination.ts';
import { copyDeletes, copyPuts, updateWithCopies } from './routing-copies.ts';

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

/**
 * Writes a new rule, with its routing copies, unless the merchant already has `max` (counted as `rule_count` on its
 * profile, in the same transaction); undefined then. A rule already stored under this id (a retried create) is
 * answered as it is. A delete (deleteRoutingRule) lowers `rule_count` in the same way.
 */
export async function putRoutingRule(rule: RoutingRuleRecord, max: number): Promise<Created<RoutingRuleRecord> | undefined> {
  const key = routingRuleKeys.item(rule, rule.id);
  return putWithinMerchantCap({ owner: rule, count: 'rule_count', max }, key, 'routing_rule', rule, routingRuleOf, (item) =>
    copyPuts(rule, key, item),
  );
}

/**
 * Applies the changes (and `move`, a transition of ROUTING_RULE; without `to`, the states fields alone change in) to
 * the merchant's rule and its routing copies; undefined when it does not exist (the key holds the merchant).
 */
export async function updateRoutingRule(
  owner: Owner,
  ruleId: string,
  changes: Omit<RoutingRuleChanges, 'status'>,
  move: Pick<Transition, 'from'> & { to?: string },
): Promise<RoutingRuleRecord | undefined> {
  const entries = Object.entries({ ...changes, status: move.to }).filter(([, value]) => value !== undefined);
  // Nothing to change still reads the rule through the same conditional write (a no-op SET), so 404 stays 404.
  if (entries.length === 0) entries.push(['id', ruleId]);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = assignments(entries, names, values);
  const key = routingRuleKeys.item(owner, ruleId);
  const updated = await conditionalWrite(
    new TransactWriteCommand({
      TransactItems: updateWithCopies(owner, key, { expression: `SET ${sets.join(', ')}`, names, values }, existingIn(move.from)),
    }),
  );
  if (!updated) return undefined;
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }));
  return out.Item && routingRuleOf(out.Item);
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
  const key = routingRuleKeys.item(owner, ruleId);
  return deleteWithinMerchantCap(owner, 'rule_count', key, copyDeletes(owner, key));
}

const existingIn = (states: readonly string[]) => {
  const from = statusIn(states);
  return { ...from, expression: `attribute_exists(pk) AND ${from.expression}` };
};

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
