/**
 * A test file's own main table (and, when asked, its own queues) on the run's DynamoDB Local and SQS, for the tests
 * of sweeps and scans (the reconciler, the renewal scanner, the daily jobs, queue and stream pollers): they read
 * across every merchant, so on the shared table they would slow down as the suite grows and meet other files' items.
 * The card vault's tables stay shared. Call it first thing, before any handler module is imported (shared/config.ts
 * reads TABLE_NAME and the queue URLs at import):
 *
 *   await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('renewals'));
 */
import { createQueues, createTable, dynamoClient, sqsClient } from '../../infra/local/services.ts';
import { tableDefinition } from '../../shared/store/table-definition.ts';

/** Between the run's table name and a file's own name: the card scan reads every table so named. */
export const OWN_TABLE_INFIX = '-own-';

export interface OwnTable {
  tableName: string;
  /** env var → queue URL, when the file asked for its own queues */
  queueUrls: Record<string, string>;
}

export async function useOwnTable(name: string, options: { queues?: boolean; stream?: boolean } = {}): Promise<OwnTable> {
  const tableName = `${process.env.TABLE_NAME}${OWN_TABLE_INFIX}${name}`;
  // A stream only where the file reads it (its own queues imply the stream's pollers): DynamoDB Local keeps every stream record, and each write
  // costs more the more it keeps, so unread streams would slow every later file of the run.
  const definition = options.queues || options.stream ? tableDefinition : { ...tableDefinition, streamView: undefined };
  await createTable(dynamoClient(process.env.AWS_ENDPOINT_URL_DYNAMODB!), tableName, definition);
  process.env.TABLE_NAME = tableName;
  const queueUrls = options.queues ? await createQueues(sqsClient(process.env.AWS_ENDPOINT_URL_SQS!), `${name}-`) : {};
  Object.assign(process.env, queueUrls);
  return { tableName, queueUrls };
}

/**
 * What `npm start` runs beside the gateway, on the file's own table and queues: a poller per queue and the table
 * stream's pollers, each running the catalog's function in this process. Quiet unless a function fails.
 */
export async function startOwnWorkers(own: OwnTable): Promise<{ stop(): Promise<void> }> {
  const [{ catalog }, { startQueuePollers }, { startStreamPollers }] = await Promise.all([
    import('../../functions/catalog.ts'),
    import('../../infra/local/workers.ts'),
    import('../../infra/local/stream.ts'),
  ]);
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB!;
  const sqs = sqsClient(process.env.AWS_ENDPOINT_URL_SQS!);
  const log = (line: string) => void (/fail|error/i.test(line) && console.log(line));
  const queues = startQueuePollers({ catalog, sqs, queueUrls: own.queueUrls, log });
  const streams = await startStreamPollers({
    catalog,
    dynamo: dynamoClient(endpoint),
    dynamoEndpoint: endpoint,
    tableName: own.tableName,
    sqs,
    queueUrls: own.queueUrls,
    log,
  });
  return { stop: async () => void (await Promise.all([queues.stop(), streams.stop()])) };
}
