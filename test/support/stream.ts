import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { catalog, type Trigger } from '../../functions/catalog.ts';
import { handler as eventStreamWorker } from '../../functions/workers/event-stream.ts';
import { lambdaRecord, passesFilter, TableStream } from '../../infra/local/stream.ts';
import { TABLE } from '../../shared/store/client.ts';
import { fakeContext } from './lambda.ts';

const trigger = catalog.find((f) => f.name === 'workers/event-stream')!.trigger as Extract<Trigger, { type: 'stream' }>;

/**
 * The table's stream from when the test file loads (every test makes its own merchant after that). The suite's shared
 * table has no stream: a file reading one makes its own table first, `useOwnTable(name, { stream: true })`.
 */
const stream = await TableStream.open(new DynamoDBClient({}), process.env.AWS_ENDPOINT_URL_DYNAMODB!, TABLE, 'latest');
/** Records read but not yet asked for: other merchants' (other tests of the file, or other files'). */
let unread: DynamoDBRecord[] = [];

/**
 * Runs the event-stream worker, as Lambda would, on the events the merchant's changes committed since the last call:
 * what it sends goes to the events queue (or to whatever a test put in the queue's place). Returns how many.
 */
export async function streamEvents(merchantId: string): Promise<number> {
  const read = (await stream.read()).map((r) => lambdaRecord(r, stream.streamArn)).filter((r) => passesFilter(trigger, r));
  unread.push(...read);
  const mine = unread.filter((r) => r.dynamodb?.NewImage?.merchant_id?.S === merchantId);
  unread = unread.filter((r) => !mine.includes(r));
  if (mine.length === 0) return 0;
  const result = await eventStreamWorker({ Records: mine }, fakeContext({ name: 'workers/event-stream' }));
  if (result.batchItemFailures.length > 0) throw new Error(`The event-stream worker failed on ${JSON.stringify(result.batchItemFailures)}`);
  return mine.length;
}
