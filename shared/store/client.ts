import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  type DeleteCommand,
  DynamoDBDocumentClient,
  type PutCommand,
  type TransactWriteCommand,
  type TransactWriteCommandInput,
  type UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config, isLocal } from '../config.ts';
import { traced } from '../tracer.ts';

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
/** DynamoDB Local on a loaded laptop or test machine may take seconds to connect or answer: locally the limits only catch a hang. */
const LOCAL_REQUEST_TIMEOUT_MS = 30_000;
const LOCAL_CONNECT_TIMEOUT_MS = 10_000;

const CONFLICT_RETRIES = 5;

/** A document client with the timeouts and retry limits above (the endpoint comes from AWS_ENDPOINT_URL_DYNAMODB locally). */
export function createDocumentClient(
  clientConfig: DynamoDBClientConfig = {},
  requestTimeoutMs = isLocal ? LOCAL_REQUEST_TIMEOUT_MS : REQUEST_TIMEOUT_MS,
): DynamoDBDocumentClient {
  const client = DynamoDBDocumentClient.from(
    traced(
      new DynamoDBClient({
        maxAttempts: MAX_ATTEMPTS,
        requestHandler: new NodeHttpHandler({
          connectionTimeout: isLocal ? LOCAL_CONNECT_TIMEOUT_MS : CONNECT_TIMEOUT_MS,
          requestTimeout: requestTimeoutMs,
          // without it a request over its timeout is only logged as a warning
          throwOnRequestTimeout: true,
        }),
        ...clientConfig,
      }),
    ),
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
  (e.name === 'ConditionalCheckFailedException' || (e.name === 'TransactionCanceledException' && /ConditionalCheckFailed/.test(e.message)));

/** A write that carries conditions: one item's put, update or delete, or a transaction of several. */
export type ConditionalCommand = PutCommand | UpdateCommand | DeleteCommand | TransactWriteCommand;

/**
 * The answer to a conditional write: `written` with what the write returned (an update's `Attributes`), or
 * `refused` when a condition did not hold, so that nothing was written, with the item as it was when the write
 * asked for it (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`; marshalled, as DynamoDB sends it).
 */
export type ConditionalResult =
  { written: true; attributes: Record<string, unknown> | undefined } | { written: false; old: Record<string, unknown> | undefined };

/**
 * Sends a conditional write: the one place in the store that tells a failed condition from any other error (commit
 * aside, which turns its own into `refused`). Other errors are thrown as they come.
 */
export async function sendConditional(command: ConditionalCommand): Promise<ConditionalResult> {
  try {
    const out = (await db.send(command as UpdateCommand)) as { Attributes?: Record<string, unknown> };
    return { written: true, attributes: out.Attributes };
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
    const old = e instanceof Error && 'Item' in e && e.Item ? (e.Item as Record<string, unknown>) : undefined;
    return { written: false, old };
  }
}

/** Sends a conditional write; false when a condition did not hold (nothing was written). */
export const conditionalWrite = async (command: ConditionalCommand): Promise<boolean> => (await sendConditional(command)).written;

/** What a create answers: the object it wrote, or the one a retried request's first run had written under its id. */
export interface Created<T> {
  created: boolean;
  record: T;
}

/** A transaction refused only because another transaction was writing one of its items at that moment. */
export const isTransactionConflict = (e: unknown): boolean =>
  e instanceof Error &&
  e.name === 'TransactionCanceledException' &&
  /TransactionConflict/.test(e.message) &&
  !/ConditionalCheckFailed/.test(e.message);

/** One write of a TransactWriteItems call: repositories hand these to each other to commit changes together. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
