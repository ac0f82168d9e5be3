/**
 * What the Lambda service and its event sources would hand a function: API Gateway REST proxy events, SQS events,
 * EventBridge scheduled events and the invocation context. Used by the local gateway, pollers, timers, `invoke`
 * and the test helpers (`test/support/lambda.ts`), so every path builds events the same way.
 *
 * Handler modules are imported lazily (`loadHandler`), because `shared/config.ts` reads the environment at import
 * time: callers set `process.env` first.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, ScheduledEvent, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { handlerFile, type FunctionSpec } from '../../functions/catalog.ts';

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT_ID = '123456789012';
export const LOCAL_STAGE = 'local';
export const LOCAL_API_ID = 'local';
const STACK_PREFIX = 'payments-local';

/** A Lambda handler as the runtime calls it (promise style; Middy handlers fit). */
export type LambdaHandler<E = unknown, R = unknown> = (event: E, context: Context) => Promise<R> | R;

/** `customers/get` → `payments-local-customers-get` (what CDK names look like, minus the hash). */
export function lambdaFunctionName(name: string): string {
  return `${STACK_PREFIX}-${name.replace(/\//g, '-')}`;
}

/**
 * Locally a function runs for three times its deployed timeout: a loaded laptop or test machine is slower than Lambda,
 * and there the limit only catches a hang (as the local DynamoDB client's limits do, shared/store/client.ts).
 */
export const LOCAL_TIMEOUT_FACTOR = 3;

export interface LambdaContextOptions {
  /** catalog name, e.g. `customers/get` */
  name?: string;
  /** seconds, as deployed (the local deadline is LOCAL_TIMEOUT_FACTOR times that) */
  timeout?: number;
  /** MB */
  memory?: number;
  awsRequestId?: string;
}

export function lambdaContext(options: LambdaContextOptions = {}): Context {
  const functionName = lambdaFunctionName(options.name ?? 'local-function');
  const deadline = Date.now() + (options.timeout ?? 10) * 1000 * LOCAL_TIMEOUT_FACTOR;
  const awsRequestId = options.awsRequestId ?? randomUUID();
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: String(options.memory ?? 512),
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export const contextFor = (spec: FunctionSpec, awsRequestId?: string): Context =>
  lambdaContext({ name: spec.name, timeout: spec.timeout, memory: spec.memory, awsRequestId });

// ---------------------------------------------------------------------------------------------------------------
// API Gateway REST proxy events

export interface ApiGatewayRequest {
  method: string;
  /** Request path without query string, as received (e.g. `/api/customers/cus_123`). */
  path: string;
  /** Resource template (`/api/customers/{id}`). */
  resource: string;
  pathParameters: Record<string, string> | null;
  /** Header [name, value] pairs in arrival order, original case (Node `rawHeaders` paired up). */
  headers: Array<[string, string]>;
  /** Raw query string without `?` (may be empty). */
  rawQuery: string;
  body: string | null;
  sourceIp: string;
  /**
   * The API's own domain name (`requestContext.domainName`): what API Gateway serves the API on, never the client's
   * `Host` header. Locally the gateway's listening `host:port`. Default `localhost`.
   */
  domainName?: string;
  requestId?: string;
  /** The method's operation name (`requestContext.operationName`): CDK names each method by its catalog entry. */
  operationName?: string;
  now?: Date;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestTime`: `09/Apr/2015:12:34:56 +0000`. */
function requestTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

/**
 * Parse `a=1&b=2&a=3` the way API Gateway does: values decoded (`+` is a space), `headers`-style last value wins.
 * Keys are data properties of their own (`constructor`, `__proto__`, `toString` are ordinary keys), as in the event
 * the Lambda runtime parses from API Gateway's JSON.
 */
export function parseQuery(rawQuery: string): {
  single: Record<string, string> | null;
  multi: Record<string, string[]> | null;
} {
  if (!rawQuery) return { single: null, multi: null };
  const multi = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(rawQuery)) {
    const list = multi.get(k);
    if (list) list.push(v);
    else multi.set(k, [v]);
  }
  if (multi.size === 0) return { single: null, multi: null };
  return {
    single: Object.fromEntries([...multi].map(([k, values]) => [k, values.at(-1)!])),
    multi: Object.fromEntries(multi),
  };
}

/**
 * Header [name, value] pairs → API Gateway's `headers` (last value wins) and `multiValueHeaders` (every value), one
 * key per name in any case (its first spelling). Any name is an ordinary key of its own, `__proto__` included.
 */
export function headerMaps(pairs: ReadonlyArray<readonly [string, string]>): {
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
} {
  const byName = new Map<string, { name: string; values: string[] }>();
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    const entry = byName.get(key);
    if (entry) entry.values.push(value);
    else byName.set(key, { name, values: [value] });
  }
  const entries = [...byName.values()];
  return {
    headers: Object.fromEntries(entries.map(({ name, values }) => [name, values.at(-1)!])),
    multiValueHeaders: Object.fromEntries(entries.map(({ name, values }) => [name, values])),
  };
}

/** Build the REST proxy event exactly as API Gateway sends it to a Lambda proxy integration. */
export function apiGatewayEvent(req: ApiGatewayRequest): APIGatewayProxyEvent {
  const now = req.now ?? new Date();
  const requestId = req.requestId ?? randomUUID();
  const headerPairs = [...req.headers];
  const has = (name: string) => headerPairs.some(([k]) => k.toLowerCase() === name);
  // API Gateway adds these in front of the integration.
  if (!has('x-forwarded-for')) headerPairs.push(['X-Forwarded-For', req.sourceIp]);
  if (!has('x-forwarded-proto')) headerPairs.push(['X-Forwarded-Proto', 'http']);
  if (!has('x-amzn-trace-id')) {
    const epochHex = Math.floor(now.getTime() / 1000).toString(16);
    headerPairs.push(['X-Amzn-Trace-Id', `Root=1-${epochHex}-${randomUUID().replace(/-/g, '').slice(0, 24)}`]);
  }
  const { headers, multiValueHeaders } = headerMaps(headerPairs);
  const query = parseQuery(req.rawQuery);
  const userAgent = headerPairs.findLast(([k]) => k.toLowerCase() === 'user-agent')?.[1] ?? null;
  const domainName = req.domainName ?? 'localhost';
  const method = req.method.toUpperCase();
  return {
    resource: req.resource,
    path: req.path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    pathParameters: req.pathParameters,
    stageVariables: null,
    requestContext: {
      resourceId: 'local',
      resourcePath: req.resource,
      httpMethod: method,
      extendedRequestId: randomUUID().replace(/-/g, '').slice(0, 16),
      requestTime: requestTime(now),
      // As behind a custom domain: the local API is served without a stage prefix.
      path: req.path,
      accountId: LOCAL_ACCOUNT_ID,
      protocol: 'HTTP/1.1',
      stage: LOCAL_STAGE,
      domainPrefix: domainName.split('.')[0]!.split(':')[0]!,
      requestTimeEpoch: now.getTime(),
      requestId,
      identity: {
        cognitoIdentityPoolId: null,
        accountId: null,
        cognitoIdentityId: null,
        caller: null,
        sourceIp: req.sourceIp,
        principalOrgId: null,
        accessKey: null,
        cognitoAuthenticationType: null,
        cognitoAuthenticationProvider: null,
        userArn: null,
        userAgent,
        user: null,
        apiKey: null,
        apiKeyId: null,
        clientCert: null,
      },
      domainName,
      apiId: LOCAL_API_ID,
      ...(req.operationName ? { operationName: req.operationName } : {}),
      authorizer: undefined,
    },
    body: req.body,
    isBase64Encoded: false,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Proxy results

export interface NormalizedResult {
  statusCode: number;
  /** Header name → values, names as the handler spelled them, `headers` and `multiValueHeaders` merged. */
  headers: Record<string, string[]>;
  body: Buffer;
}

/** Validate and normalize a proxy result the way API Gateway does (throws on a malformed result). */
export function normalizeProxyResult(result: unknown): NormalizedResult {
  if (!result || typeof result !== 'object') throw new Error(`Malformed Lambda proxy response: ${JSON.stringify(result)}`);
  const r = result as Partial<APIGatewayProxyResult>;
  const statusCode = Number(r.statusCode);
  if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
    throw new Error(`Malformed Lambda proxy response: statusCode ${JSON.stringify(r.statusCode)}`);
  }
  const byName = new Map<string, { name: string; values: string[] }>();
  const add = (name: string, value: unknown) => {
    const key = name.toLowerCase();
    const entry = byName.get(key) ?? byName.set(key, { name, values: [] }).get(key)!;
    const v = String(value);
    if (!entry.values.includes(v)) entry.values.push(v);
  };
  for (const [name, values] of Object.entries(r.multiValueHeaders ?? {})) for (const v of values ?? []) add(name, v);
  for (const [name, value] of Object.entries(r.headers ?? {})) add(name, value);
  const headers = Object.fromEntries([...byName.values()].map(({ name, values }) => [name, values]));
  if (r.body !== undefined && r.body !== null && typeof r.body !== 'string') {
    throw new Error('Malformed Lambda proxy response: body must be a string');
  }
  const body = r.body ? Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  return { statusCode, headers, body };
}

// ---------------------------------------------------------------------------------------------------------------
// SQS and EventBridge events

export const queueArn = (queueName: string): string => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${queueName}`;

/** A message as `ReceiveMessage` of the SQS SDK returns it (only what the event needs). */
export interface ReceivedMessage {
  MessageId?: string;
  ReceiptHandle?: string;
  Body?: string;
  MD5OfBody?: string;
  MD5OfMessageAttributes?: string;
  Attributes?: Partial<Record<string, string>>;
  MessageAttributes?: Record<
    string,
    { DataType?: string; StringValue?: string; BinaryValue?: Uint8Array; StringListValues?: string[]; BinaryListValues?: Uint8Array[] }
  >;
}

/** The SQS event Lambda's event source mapping would send for these messages. */
export function sqsEvent(messages: readonly ReceivedMessage[], eventSourceARN: string): SQSEvent {
  const now = String(Date.now());
  return {
    Records: messages.map((m): SQSRecord => {
      const messageAttributes: SQSMessageAttributes = {};
      for (const [name, a] of Object.entries(m.MessageAttributes ?? {})) {
        messageAttributes[name] = {
          dataType: a.DataType ?? 'String',
          ...(a.StringValue !== undefined ? { stringValue: a.StringValue } : {}),
          ...(a.BinaryValue !== undefined ? { binaryValue: Buffer.from(a.BinaryValue).toString('base64') } : {}),
          stringListValues: a.StringListValues ?? [],
          binaryListValues: (a.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
        };
      }
      const attrs = m.Attributes ?? {};
      return {
        messageId: m.MessageId ?? randomUUID(),
        receiptHandle: m.ReceiptHandle ?? '',
        body: m.Body ?? '',
        attributes: {
          ...attrs,
          ApproximateReceiveCount: attrs.ApproximateReceiveCount ?? '1',
          SentTimestamp: attrs.SentTimestamp ?? now,
          SenderId: attrs.SenderId ?? 'AIDAIENQZJOLO23YVJ4VO',
          ApproximateFirstReceiveTimestamp: attrs.ApproximateFirstReceiveTimestamp ?? now,
        },
        messageAttributes,
        md5OfBody: m.MD5OfBody ?? '',
        ...(m.MD5OfMessageAttributes ? { md5OfMessageAttributes: m.MD5OfMessageAttributes } : {}),
        eventSource: 'aws:sqs',
        eventSourceARN,
        awsRegion: LOCAL_REGION,
      };
    }),
  };
}

/** The EventBridge "Scheduled Event" a schedule rule sends. */
export function scheduledEvent(ruleName: string, now = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: LOCAL_REGION,
    resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${ruleName}`],
    detail: {},
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Handler loading and invocation

export type HandlerLoader = (name: string) => Promise<LambdaHandler>;

const loaded = new Map<string, Promise<LambdaHandler>>();

/**
 * Import `functions/<name>.ts` once and return its `handler` export. A failed import is not cached, so a fixed
 * file loads on the next request (tsx has no hot reload, but a file that did not exist yet may appear).
 */
export const loadHandler: HandlerLoader = (name) => {
  let p = loaded.get(name);
  if (!p) {
    const url = pathToFileURL(resolve(projectRoot, handlerFile(name))).href;
    p = import(url).then((mod: { handler?: unknown }) => {
      if (typeof mod.handler !== 'function') throw new Error(`${handlerFile(name)} does not export a function named "handler"`);
      return mod.handler as LambdaHandler;
    });
    p.catch(() => loaded.delete(name));
    loaded.set(name, p);
  }
  return p;
};

export class LambdaTimeoutError extends Error {
  constructor(name: string, seconds: number) {
    super(`Task timed out after ${seconds.toFixed(2)} seconds (${name})`);
    this.name = 'LambdaTimeoutError';
  }
}

/** Run a handler like the Lambda runtime: with its context, failing with `LambdaTimeoutError` past its local deadline. */
export async function invokeFunction<R = unknown>(
  spec: FunctionSpec,
  event: unknown,
  options: { loader?: HandlerLoader; awsRequestId?: string } = {},
): Promise<R> {
  const handler = await (options.loader ?? loadHandler)(spec.name);
  const context = contextFor(spec, options.awsRequestId);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const seconds = spec.timeout * LOCAL_TIMEOUT_FACTOR;
    timer = setTimeout(() => reject(new LambdaTimeoutError(spec.name, seconds)), seconds * 1000);
    timer.unref();
  });
  try {
    return (await Promise.race([Promise.resolve(handler(event, context)), timeout])) as R;
  } finally {
    clearTimeout(timer);
  }
}
