import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';

/** One document client per container, created at cold start. The endpoint comes from AWS_ENDPOINT_URL_DYNAMODB locally. */
export const db = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  // convertClassInstanceToMap: the marshaller tells plain objects by `constructor.name`, so a merchant's metadata
  // with a `constructor` key would otherwise fail to store; it is stored as a map like any other object.
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
});

export const TABLE = config.TABLE_NAME;

/** DynamoDB TTL wants epoch seconds. */
export const ttl = (ms: number): number => Math.floor(ms / 1000);

export const isConditionFailure = (e: unknown): boolean =>
  e instanceof Error &&
  (e.name === 'ConditionalCheckFailedException' ||
    (e.name === 'TransactionCanceledException' && /ConditionalCheckFailed/.test(e.message)));

/** One write of a TransactWriteItems call: repositories hand these to each other to commit changes together. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
