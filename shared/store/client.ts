import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { config } from '../config.ts';

/** One document client per container, created at cold start. The endpoint comes from AWS_ENDPOINT_URL_DYNAMODB locally. */
export const db = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  // convertClassInstanceToMap: the marshaller tells plain objects by `constructor.name`, so a merchant's metadata
  // with a `constructor` key would otherwise fail to store; it is stored as a map like any other object.
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
});

export const TABLE = config.TABLE_NAME;

const CONFLICT_RETRIES = 5;

/**
 * A transaction cancelled only because another one was writing one of its items (TransactionConflict) applied
 * nothing, so it is sent again, after a short jittered pause, up to CONFLICT_RETRIES times: callers see such a
 * conflict only when it persists. Conditions that failed are never retried here.
 */
db.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
    for (let attempt = 1; ; attempt++) {
      try {
        return await next(args);
      } catch (e) {
        if (attempt > CONFLICT_RETRIES || !isTransactionConflict(e)) throw e;
        await sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));
      }
    }
  },
  { step: 'initialize', name: 'retryTransactionConflicts' },
);

/** DynamoDB TTL wants epoch seconds. */
export const ttl = (ms: number): number => Math.floor(ms / 1000);

export const isConditionFailure = (e: unknown): boolean =>
  e instanceof Error &&
  (e.name === 'ConditionalCheckFailedException' ||
    (e.name === 'TransactionCanceledException' && /ConditionalCheckFailed/.test(e.message)));

/** A transaction refused only because another transaction was writing one of its items at that moment. */
export const isTransactionConflict = (e: unknown): boolean =>
  e instanceof Error &&
  e.name === 'TransactionCanceledException' &&
  /TransactionConflict/.test(e.message) &&
  !/ConditionalCheckFailed/.test(e.message);

/** One write of a TransactWriteItems call: repositories hand these to each other to commit changes together. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
