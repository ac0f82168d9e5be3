import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config.ts';

/**
 * Every DynamoDB call ends well inside an API function's 10 s timeout, so a stalled table answers the client with a
 * 500 from our own code rather than a killed function: each attempt may take CONNECT_TIMEOUT_MS to connect and
 * REQUEST_TIMEOUT_MS in all, and the SDK's standard retry strategy makes at most MAX_ATTEMPTS of them (with its
 * jittered backoff: about 7 s in the worst case). A request that timed out on our side may still have been applied:
 * callers treat such a failure as an unknown outcome (the idempotency layer never frees its key for it).
 */
export const CONNECT_TIMEOUT_MS = 1_000;
export const REQUEST_TIMEOUT_MS = 2_000;
export const MAX_ATTEMPTS = 3;

const CONFLICT_RETRIES = 5;

/** A document client with the timeouts and retry limits above (the endpoint comes from AWS_ENDPOINT_URL_DYNAMODB locally). */
export function createDocumentClient(clientConfig: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      maxAttempts: MAX_ATTEMPTS,
      requestHandler: new NodeHttpHandler({
        connectionTimeout: CONNECT_TIMEOUT_MS,
        requestTimeout: REQUEST_TIMEOUT_MS,
        // without it a request over its timeout is only logged as a warning
        throwOnRequestTimeout: true,
      }),
      ...clientConfig,
    }),
    {
      // convertClassInstanceToMap: the marshaller tells plain objects by `constructor.name`, so a merchant's metadata
      // with a `constructor` key would otherwise fail to store; it is stored as a map like any other object.
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
    },
  );
  /**
   * A transaction cancelled only because another one was writing one of its items (TransactionConflict) applied
   * nothing, so it is sent again, after a short jittered pause, up to CONFLICT_RETRIES times: callers see such a
   * conflict only when it persists. Conditions that failed are never retried here.
   *
   * Each send carries a ClientRequestToken (unless the caller chose one), the same across the SDK's own retries of
   * that send: a transaction whose answer was lost to a timeout and is retried by the SDK is then recognised by
   * DynamoDB as already applied, instead of failing its own conditions.
   */
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const input = args.input as { ClientRequestToken?: string };
      for (let attempt = 1; ; attempt++) {
        try {
          return await next({ ...args, input: { ...input, ClientRequestToken: input.ClientRequestToken ?? randomUUID() } });
        } catch (e) {
          if (attempt > CONFLICT_RETRIES || !isTransactionConflict(e)) throw e;
          await sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));
        }
      }
    },
    { step: 'initialize', name: 'retryTransactionConflicts' },
  );
  return client;
}

/** One document client per container, created at cold start. */
export const db = createDocumentClient();

export const TABLE = config.TABLE_NAME;

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
