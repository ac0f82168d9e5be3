import { TABLE, type TransactItem } from './client.ts';
import { connectorKeys, type Key, ROUTING_COPIES, routingCopyKeys, routingRuleKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { type Item, queryAll } from './pagination.ts';

/**
 * The copies of an owner's connector accounts and routing rules that routing reads (keys.ts `routingCopyKeys`). They
 * stay equal to the items because every write of an item writes its copies in the same transaction: a new item's
 * copies are put whole, a change is made to the item and to each copy alike.
 */
/** An expression with its attribute names and values. */
export interface Expression {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

const COPIES = Array.from({ length: ROUTING_COPIES }, (_, copy) => copy);

/** An item as its copies hold it: without its own keys and index keys (a copy is in no index). */
function copyBody(item: Item): Item {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g1s, gsi2pk: _g2, gsi2sk: _g2s, ...body } = item;
  return body;
}

/** Puts of the copies of a new item (`key`: the item's own key), for the transaction that writes the item. */
export const copyPuts = (owner: Owner, key: Key, item: Item): TransactItem[] =>
  COPIES.map((copy) => ({ Put: { TableName: TABLE, Item: { ...copyBody(item), ...routingCopyKeys.of(owner, copy, key.sk) } } }));

/** Deletes of the copies of an item that goes (`key`: the item's own key), for the transaction that deletes it. */
export const copyDeletes = (owner: Owner, key: Key): TransactItem[] =>
  COPIES.map((copy) => ({ Delete: { TableName: TABLE, Key: routingCopyKeys.of(owner, copy, key.sk) } }));

/** DynamoDB refuses an empty map of names or values. */
const orNone = <T>(entries: Record<string, T>) => (Object.keys(entries).length > 0 ? entries : undefined);

/**
 * The update (`set`) of an existing item under its `condition`, and the same update on each of its copies, which only
 * need to exist: for the transaction that changes the item. `itemSet`, when given, is the item's own update instead
 * (`set` and fields routing never reads, such as `metadata`, which the copies do not hold).
 */
export function updateWithCopies(owner: Owner, key: Key, set: Expression, condition: Expression, itemSet: Expression = set): TransactItem[] {
  const update = (target: Key, change: Expression, when: Expression) => ({
    Update: {
      TableName: TABLE,
      Key: target,
      UpdateExpression: change.expression,
      ConditionExpression: when.expression,
      ExpressionAttributeNames: orNone({ ...change.names, ...when.names }),
      ExpressionAttributeValues: orNone({ ...change.values, ...when.values }),
    },
  });
  return [
    update(key, itemSet, condition),
    ...COPIES.map((copy) => update(routingCopyKeys.of(owner, copy, key.sk), set, { expression: 'attribute_exists(pk)' })),
  ];
}

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
