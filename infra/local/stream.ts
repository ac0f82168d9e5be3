/**
 * The table's stream, locally: DynamoDB Local keeps a stream like DynamoDB's, read here through the Streams API, and a
 * poller hands its records to the catalog's stream functions the way Lambda's event source mapping does (filter,
 * batch, retry from the first failure, bisect a batch that throws, give up on records past their maximum age).
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { FunctionSpec, Trigger } from '../../functions/catalog.ts';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queueDefinitions } from '../../shared/queues.ts';
import { invokeFunction, type HandlerLoader, loadHandler } from './lambda.ts';
import type { Workers } from './workers.ts';

type StreamSpec = FunctionSpec & { trigger: Extract<Trigger, { type: 'stream' }> };

/** Reads a table's stream shard by shard, each shard's records in order; shards that open later are read from their start. */
export class TableStream {
  private readonly iterators = new Map<string, string | undefined>();
  private readonly seen = new Set<string>();

  private constructor(
    private readonly client: DynamoDBStreamsClient,
    readonly streamArn: string,
  ) {}

  /** From now on (`latest`), or every record the stream still holds (`start`). `endpoint`: DynamoDB Local's. */
  static async open(dynamo: DynamoDBClient, endpoint: string, tableName: string, from: 'latest' | 'start' = 'latest'): Promise<TableStream> {
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.LatestStreamArn) throw new Error(`Table ${tableName} has no stream`);
    const client = new DynamoDBStreamsClient({ region: await dynamo.config.region(), endpoint, credentials: dynamo.config.credentials });
    const stream = new TableStream(client, Table.LatestStreamArn);
    await stream.discover(from === 'latest' ? 'LATEST' : 'TRIM_HORIZON');
    return stream;
  }

  /** Every record written since the last read (across shards; one shard's in order). */
  async read(): Promise<StreamRecord[]> {
    await this.discover('TRIM_HORIZON');
    const records: StreamRecord[] = [];
    for (const [shardId, iterator] of this.iterators) {
      let next = iterator;
      while (next) {
        const out = await this.getRecords(shardId, next);
        records.push(...(out.Records ?? []));
        next = out.NextShardIterator;
        if (!out.Records?.length) break;
      }
      // a closed shard read to its end has no next iterator: forget it (its children are discovered)
      if (next) this.iterators.set(shardId, next);
      else this.iterators.delete(shardId);
    }
    return records;
  }

  /**
   * One page of a shard. Under load DynamoDB Local trimmed a stream past a reader's position (TrimmedDataAccessException,
   * seen with two test files at once): the shard is then read on from the oldest record it still holds, as Lambda's
   * event source mapping goes on past records it can no longer read, instead of failing every read after.
   */
  private async getRecords(shardId: string, iterator: string) {
    try {
      return await this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    } catch (err) {
      if ((err as Error).name !== 'TrimmedDataAccessException') throw err;
      const fresh = await this.client.send(
        new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      return this.client.send(new GetRecordsCommand({ ShardIterator: fresh.ShardIterator, Limit: 1000 }));
    }
  }

  close(): void {
    this.client.destroy();
  }

  /** Shards not seen yet: open ones from `position`, closed ones (already split) skipped when reading from now. */
  private async discover(position: 'LATEST' | 'TRIM_HORIZON'): Promise<void> {
    const { StreamDescription } = await this.client.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId!;
      if (this.seen.has(shardId)) continue;
      this.seen.add(shardId);
      const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      if (closed && position === 'LATEST') continue;
      const out = await this.client.send(new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ShardIteratorType: position }));
      this.iterators.set(shardId, out.ShardIterator);
    }
  }
}

type Value = { M?: Record<string, Value>; L?: Value[] } & Record<string, unknown>;

/**
 * An attribute value as Lambda sends it (JSON): binary as base64, and an empty map as `{ M: {} }` (the Streams client
 * reads it as `{}`).
 */
function attributeValue(value: Value): Value {
  if (value.B instanceof Uint8Array) return { B: Buffer.from(value.B).toString('base64') };
  if (value.M) return { M: attributeMap(value.M) };
  if (value.L) return { L: value.L.map(attributeValue) };
  if (Object.keys(value).length === 0) return { M: {} };
  return JSON.parse(JSON.stringify(value)) as Value;
}
const attributeMap = (map: Record<string, Value>) => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, attributeValue(v)]));
const image = (map: object) => attributeMap(map as Record<string, Value>) as Record<string, AttributeValue>;

/** A record as Lambda hands it to a function (the Streams API's shape, with the creation time in seconds). */
export function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const { ApproximateCreationDateTime, NewImage, OldImage, ...dynamodb } = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    dynamodb: {
      ...(JSON.parse(JSON.stringify(dynamodb)) as DynamoDBRecord['dynamodb']),
      ...(NewImage ? { NewImage: image(NewImage) } : {}),
      ...(OldImage ? { OldImage: image(OldImage) } : {}),
      ApproximateCreationDateTime: ApproximateCreationDateTime ? Math.floor(ApproximateCreationDateTime.getTime() / 1000) : undefined,
    },
    eventSourceARN: streamArn,
  };
}

/** What the event source mapping's filter lets through: new items of the trigger's type. */
export const passesFilter = (trigger: StreamSpec['trigger'], record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === trigger.itemType;

export interface StreamPollerOptions {
  catalog: readonly FunctionSpec[];
  dynamo: DynamoDBClient;
  dynamoEndpoint: string;
  tableName: string;
  sqs: SQSClient;
  /** env var → queue URL (from `createQueues`): where a stream function's failures go */
  queueUrls: Record<string, string>;
  loader?: HandlerLoader;
  /** between reads of the stream, ms. Default 250. */
  intervalMs?: number;
  log?: (line: string) => void;
}

/** One poller per stream function of the catalog, reading from now on. */
export async function startStreamPollers(options: StreamPollerOptions): Promise<Workers> {
  const specs = options.catalog.filter((f): f is StreamSpec => f.trigger.type === 'stream');
  const log = options.log ?? ((line: string) => console.log(line));
  const abort = new AbortController();
  const streams = await Promise.all(specs.map(() => TableStream.open(options.dynamo, options.dynamoEndpoint, options.tableName)));
  const loops = specs.map((spec, i) => pollStream(spec, streams[i]!, options, abort.signal, log));
  let stopping: Promise<void> | undefined;
  return {
    names: specs.map((s) => s.name),
    stop: () =>
      (stopping ??= (async () => {
        abort.abort();
        await Promise.allSettled(loops);
        for (const stream of streams) stream.close();
      })()),
  };
}

async function pollStream(spec: StreamSpec, stream: TableStream, options: StreamPollerOptions, signal: AbortSignal, log: (line: string) => void) {
  const pending: DynamoDBRecord[] = [];
  while (!signal.aborted) {
    try {
      const records = (await stream.read()).map((r) => lambdaRecord(r, stream.streamArn));
      pending.push(...records.filter((r) => passesFilter(spec.trigger, r)));
    } catch (err) {
      if (signal.aborted) return;
      log(`[stream] ${spec.name}: read failed: ${(err as Error).message}`);
    }
    while (pending.length > 0 && !signal.aborted) await deliverBatch(spec, pending, options, signal, log);
    await sleep(options.intervalMs ?? 250, signal);
  }
}

/**
 * Hands the first `batchSize` pending records to the function until they are done (removed from `pending`): a
 * reported failure checkpoints the records before it and retries from it; a thrown error retries half the batch
 * (bisect); records older than `maxRecordAgeSeconds` are given up on, described in the failure queue.
 */
async function deliverBatch(
  spec: StreamSpec,
  pending: DynamoDBRecord[],
  options: StreamPollerOptions,
  signal: AbortSignal,
  log: (line: string) => void,
) {
  let size = Math.min(spec.trigger.batchSize, pending.length);
  for (let attempt = 0; !signal.aborted; attempt++) {
    const batch = pending.slice(0, size);
    const started = performance.now();
    try {
      const response = await invokeFunction<DynamoDBBatchResponse | void>(spec, { Records: batch } satisfies DynamoDBStreamEvent, {
        loader: options.loader ?? loadHandler,
      });
      const failed = response?.batchItemFailures?.[0]?.itemIdentifier;
      const done =
        failed === undefined
          ? batch.length
          : Math.max(
              0,
              batch.findIndex((r) => r.dynamodb?.SequenceNumber === failed),
            );
      pending.splice(0, done);
      log(`[stream] ${spec.name}: ${batch.length} record(s), ${batch.length - done} to retry, ${Math.round(performance.now() - started)} ms`);
      if (failed === undefined) return;
      size = Math.min(size, pending.length);
    } catch (err) {
      console.error(`[stream] ${spec.name} failed on ${batch.length} record(s); retrying ${batch.length > 1 ? 'half of them' : 'it'}:`, err);
      size = Math.max(1, Math.ceil(size / 2));
    }
    const oldest = pending[0]?.dynamodb?.ApproximateCreationDateTime;
    if (oldest !== undefined && Date.now() / 1000 - oldest > spec.trigger.maxRecordAgeSeconds) {
      await giveUp(spec, pending.splice(0, size), options, log);
      return;
    }
    await sleep(Math.min(2000, 100 * 2 ** attempt), signal);
  }
}

/** Lambda's on-failure record for a stream batch: which shard and sequence range, not the records themselves. */
async function giveUp(spec: StreamSpec, batch: DynamoDBRecord[], options: StreamPollerOptions, log: (line: string) => void) {
  const definition = queueDefinitions.find((q) => q.name === spec.trigger.failuresTo)!;
  const record = {
    requestContext: { condition: 'RecordAgeExceeded', functionArn: spec.name, approximateInvokeCount: 1 },
    DDBStreamBatchInfo: {
      batchSize: batch.length,
      startSequenceNumber: batch[0]?.dynamodb?.SequenceNumber,
      endSequenceNumber: batch.at(-1)?.dynamodb?.SequenceNumber,
      streamArn: batch[0]?.eventSourceARN,
    },
  };
  await options.sqs.send(new SendMessageCommand({ QueueUrl: options.queueUrls[definition.dlqEnvVar], MessageBody: JSON.stringify(record) }));
  log(`[stream] ${spec.name}: gave up on ${batch.length} record(s) past their maximum age; described in ${definition.name}-dlq`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const t = setTimeout(done, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        done();
      },
      { once: true },
    );
  });
}
