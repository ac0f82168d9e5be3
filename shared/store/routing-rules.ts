import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ProviderName } from '../providers/types.ts';
import type { RuleCondition } from '../domain/routing-rules.ts';
import { assignments } from './expressions.ts';
import { conditionalUpdate, type Created, TABLE } from './client.ts';
import { routingRuleKeys } from './keys.ts';
import { putWithinMerchantCap } from './merchants.ts';
import { listPage, merchantSet, merchantSetItems, type Page, type PageQuery } from './pagination.ts';

export interface RoutingRuleRecord {
  id: string;
  merchant_id: string;
  name: string;
  strategy: 'fixed' | 'smart';
  priority: number;
  conditions: RuleCondition[];
  provider: ProviderName;
  status: 'active' | 'disabled';
  created_at: string;
}

export type RoutingRuleChanges = Partial<Pick<RoutingRuleRecord, 'name' | 'strategy' | 'priority' | 'conditions' | 'provider' | 'status'>>;

/**
 * Writes a new rule unless the merchant already has `max` (counted as `rule_count` on its profile, in the same
 * transaction); undefined then. A rule already stored under this id (a retried create) is answered as it is.
 * Rules are never deleted; a future delete must lower `rule_count` in the same way.
 */
export async function putRoutingRule(rule: RoutingRuleRecord, max: number): Promise<Created<RoutingRuleRecord> | undefined> {
  const put = await putWithinMerchantCap(rule.merchant_id, 'rule_count', max, routingRuleKeys.item(rule.merchant_id, rule.id), {
    type: 'routing_rule',
    ...rule,
  });
  return put && { created: put.created, record: strip(put.record) };
}

/** Applies the changes to the merchant's rule; undefined when it does not exist (the key holds the merchant). */
export async function updateRoutingRule(merchantId: string, ruleId: string, changes: RoutingRuleChanges): Promise<RoutingRuleRecord | undefined> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  // Nothing to change still reads the rule through the same conditional write (a no-op SET), so 404 stays 404.
  if (entries.length === 0) entries.push(['id', ruleId]);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = assignments(entries, names, values);
  const updated = await conditionalUpdate<RoutingRuleRecord>(
    new UpdateCommand({
      TableName: TABLE,
      Key: routingRuleKeys.item(merchantId, ruleId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return updated && strip(updated);
}

/**
 * All the merchant's rules (at most 50 small items, one partition, usually one page), unordered.
 * `consistent` for the API's own reads (a rule just written is listed); routing may read eventually consistent.
 */
/** A page of the merchant's rules, newest first, read consistently (a rule just made or changed is in it). */
export async function routingRulePage(merchantId: string, page: PageQuery): Promise<Page<RoutingRuleRecord>> {
  const result = await listPage<RoutingRuleRecord>(merchantSet(routingRuleKeys, merchantId, { consistent: true }), page);
  return { data: result.data.map(strip), has_more: result.has_more };
}

/** Every rule of the merchant (at most 50), for the routing engine. */
export async function listRoutingRules(merchantId: string, options: { consistent: boolean }): Promise<RoutingRuleRecord[]> {
  return (await merchantSetItems<RoutingRuleRecord>(routingRuleKeys, merchantId, options)).map(strip);
}

function strip(item: RoutingRuleRecord): RoutingRuleRecord {
  const { id, merchant_id, name, strategy, priority, conditions, provider, status, created_at } = item;
  return { id, merchant_id, name, strategy, priority, conditions: conditions ?? [], provider, status, created_at };
}
