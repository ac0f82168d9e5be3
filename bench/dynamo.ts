/**
 * Counts what every DynamoDB request costs: an SDK middleware on the handlers' document client (`db`) asks for
 * `ReturnConsumedCapacity: 'TOTAL'` and records each call's command, marshalled input, capacity and round trip.
 * Import only after the local stack's environment is in process.env (the client reads its config at import).
 */
import * as ddb from '@aws-sdk/client-dynamodb';
import { db } from '../shared/store/client.ts';

export interface Call {
  command: string;
  /** the low-level (marshalled) input, to replay the call */
  input: Record<string, unknown>;
  /** partition key prefixes touched, e.g. `PAY`, `RATE` */
  keys: string[];
  /** the card vault's tables, cards and CVCs (their units are counted apart from the main table's) */
  vault: boolean;
  rcu: number;
  wcu: number;
  ms: number;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);
let recording: Call[] | undefined;

db.middlewareStack.add(
  (next) => async (args) => {
    (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
    return next(args);
  },
  { step: 'initialize', name: 'benchAskCapacity' },
);
db.middlewareStack.add(
  (next, context) => async (args) => {
    const started = performance.now();
    const result = await next(args);
    const ms = performance.now() - started;
    if (recording) {
      const command = String(context.commandName).replace(/Command$/, '');
      const consumed = [(result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity ?? []].flat() as ddb.ConsumedCapacity[];
      const units = consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      const input = structuredClone(args.input) as Record<string, unknown>;
      // A replay is a new request: it must not carry the recorded transaction's idempotency token.
      delete input.ClientRequestToken;
      const write = WRITES.has(command);
      recording.push({
        command,
        input,
        keys: keyPrefixes(input),
        vault: [process.env.VAULT_TABLE, process.env.VAULT_CVC_TABLE].includes(tableOf(input) as string),
        rcu: write ? 0 : Math.max(units, minimumRead(input)),
        wcu: write ? units : 0,
        ms,
      });
    }
    return result;
  },
  // after serialization: the input is the marshalled one, whichever client (document or low-level) sent it
  { step: 'build', name: 'benchRecordCapacity' },
);

/**
 * The least a read request is billed: half a unit, one when consistent. DynamoDB Local reports 0 for a query that
 * matches nothing (a merchant's rules when it has none, an empty counter shard); the service bills the minimum.
 */
const minimumRead = (input: Record<string, unknown>): number => (input.ConsistentRead ? 1 : 0.5);

/** The table a request names (a transaction's first item's; the vault's transactions write the vault alone). */
function tableOf(input: Record<string, unknown>): unknown {
  const items = input.TransactItems as Record<string, { TableName?: string }>[] | undefined;
  return input.TableName ?? (items?.[0] && Object.values(items[0])[0]?.TableName);
}

/** `PAY` for `pk = PAY#…`; a query names its index and the key value's prefix, e.g. `gsi1:MER`. */
function keyPrefixes(input: Record<string, unknown>): string[] {
  // a query's next page starts after an item's key: that key is not what it reads
  const { ExclusiveStartKey: _startKey, ...read } = input;
  const json = JSON.stringify(read);
  const pks = [...json.matchAll(/"pk":\{"S":"([A-Z]+)#/g)].map((m) => m[1]!);
  if (pks.length) return pks;
  const value = /":\w+":\{"S":"([A-Z]+)#/.exec(json)?.[1] ?? '?';
  return [input.IndexName ? `${String(input.IndexName)}:${value}` : value];
}

/** The DynamoDB calls `fn` makes. */
export async function record(fn: () => Promise<unknown>): Promise<Call[]> {
  recording = [];
  try {
    await fn();
    return recording;
  } finally {
    recording = undefined;
  }
}

/** Sends a recorded call again (through the same client and connection pool), returns its round trip in ms. */
export async function replay(call: Pick<Call, 'command' | 'input'>): Promise<number> {
  const Command = (ddb as unknown as Record<string, new (input: unknown) => ddb.GetItemCommand>)[`${call.command}Command`]!;
  const started = performance.now();
  await db.send(Command && new Command(call.input));
  return performance.now() - started;
}
