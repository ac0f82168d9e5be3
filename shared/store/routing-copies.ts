import { connectorKeys, ROUTING_COPIES, routingCopyKeys, routingRuleKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { type Item, queryAll } from './pagination.ts';

/**
 * The copies of an owner's connector accounts and routing rules that routing reads (keys.ts `routingCopyKeys`). They
 * stay equal to the items because every change of an item writes its copies in the same commit: a new item's copies
 * are created whole (without what routing never reads), a change is made to the item and to each copy alike.
 */
const COPIES = Array.from({ length: ROUTING_COPIES }, (_, copy) => copy);

/** The `commit` targets of the routing copies of a connector account or rule (`target`: the item's own). */
export const copiesOf = <T extends { entity: 'connector' | 'routing_rule'; id: string; owner: Owner }>(target: T): Array<T & { copy: number }> =>
  COPIES.map((copy) => ({ ...target, copy }));

/**
 * One copy, at random, in one query: the owner's connector accounts and rules, each newest first as their own
 * partition lists them.
 */
export async function readRoutingCopy(owner: Owner): Promise<{ connectors: Item[]; rules: Item[] }> {
  const copy = Math.floor(Math.random() * ROUTING_COPIES);
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': routingCopyKeys.partition(owner, copy) },
    ScanIndexForward: false,
  });
  const withPrefix = (prefix: string) => items.filter((item) => String(item.sk).startsWith(prefix));
  return { connectors: withPrefix(connectorKeys.listPrefix(owner).skPrefix), rules: withPrefix(routingRuleKeys.listPrefix(owner).skPrefix) };
}
