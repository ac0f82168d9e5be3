import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, TABLE } from '../client.ts';
import {
  connectorKeys,
  disputeKeys,
  merchantKeys,
  type Owner,
  paymentKeys,
  refundKeys,
  ROUTING_COPIES,
  routingCopyKeys,
  subscriptionKeys,
} from '../keys.ts';
import { copyPuts } from '../routing-copies.ts';
import { scanTable } from './scan.ts';
import { capCountOf } from '../merchants.ts';

/**
 * The one-off migration of items written before test and live data were separated (`npm run migrate:modes`). Back
 * then every list and small set of a merchant was one partition, the one live data keeps. The items that recorded
 * their mode move into their test partitions:
 * - payments, refunds, disputes and subscriptions with `livemode: false`: their list key (gsi1pk);
 * - connector accounts of mode `test`: the item moves to the merchant's test partition, and its place under the cap
 *   from `connector_count` to `test_connector_count`.
 * Items that never recorded a mode (customers, invoices, routing rules, webhook endpoints, events, settlements) and
 * the counters (balance, analytics, payment counts) stay live: there is nothing to tell their mode by. Every step is
 * a conditional write of the old shape, so running it again, or after a crash midway, moves nothing twice.
 */
const LISTED = { payment: paymentKeys, refund: refundKeys, dispute: disputeKeys, subscription: subscriptionKeys } as const;
type Listed = keyof typeof LISTED;
const isListed = (type: unknown): type is Listed => typeof type === 'string' && type in LISTED;

export interface ModeMigration {
  listed: number;
  connectors: number;
}

export async function migrateModes(): Promise<ModeMigration> {
  const moved: ModeMigration = { listed: 0, connectors: 0 };
  const toMove = scanTable({
    FilterExpression: 'livemode = :false OR (#type = :connector AND #mode = :test)',
    ExpressionAttributeNames: { '#type': 'type', '#mode': 'mode' },
    ExpressionAttributeValues: { ':false': false, ':connector': 'connector', ':test': 'test' },
  });
  for await (const item of toMove) {
    if (isListed(item.type) && (await moveListKey(item.type, item))) moved.listed++;
    if (item.type === 'connector' && (await moveConnector(item))) moved.connectors++;
  }
  return moved;
}

const ownersOf = (item: Record<string, unknown>): { live: Owner; test: Owner } => ({
  live: { merchant_id: String(item.merchant_id), livemode: true },
  test: { merchant_id: String(item.merchant_id), livemode: false },
});

/** A listed item still in its merchant's live list moves to the test list. */
async function moveListKey(type: Listed, item: Record<string, unknown>): Promise<boolean> {
  const { live, test } = ownersOf(item);
  const from = LISTED[type].listPartition(live);
  if (typeof item.merchant_id !== 'string' || item.gsi1pk !== from) return false;
  return conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: 'SET gsi1pk = :to',
      ConditionExpression: 'gsi1pk = :from',
      ExpressionAttributeValues: { ':from': from, ':to': LISTED[type].listPartition(test) },
    }),
  );
}

/** A test connector in the merchant's live partition moves to the test one, with its place under the cap and its routing copies. */
async function moveConnector(item: Record<string, unknown>): Promise<boolean> {
  const { live, test } = ownersOf(item);
  const id = String(item.id);
  const old = connectorKeys.item(live, id);
  if (typeof item.merchant_id !== 'string' || item.pk !== old.pk || item.sk !== old.sk) return false;
  const counted = item.status !== 'deleted';
  return conditionalWrite(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: TABLE, Key: old, ConditionExpression: 'attribute_exists(pk)' } },
        { Put: { TableName: TABLE, Item: { ...item, ...connectorKeys.item(test, id) }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ...Array.from({ length: ROUTING_COPIES }, (_, copy) => ({ Delete: { TableName: TABLE, Key: routingCopyKeys.of(live, copy, old.sk) } })),
        ...copyPuts(test, connectorKeys.item(test, id), item),
        ...(counted
          ? [
              {
                Update: {
                  TableName: TABLE,
                  Key: merchantKeys.profile(item.merchant_id),
                  UpdateExpression: 'ADD #live :minus, #test :one',
                  ExpressionAttributeNames: { '#live': capCountOf(live, 'connector_count'), '#test': capCountOf(test, 'connector_count') },
                  ExpressionAttributeValues: { ':minus': -1, ':one': 1 },
                },
              },
            ]
          : []),
      ],
    }),
  );
}
