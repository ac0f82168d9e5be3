/**
 * Call handlers directly, as API Gateway + Lambda would: build a REST proxy event from a small spec, a Lambda
 * context, and read the proxy result back (status, lower-cased headers, parsed JSON body).
 *
 * Events are built by the same code the local gateway uses (`infra/local/lambda.ts`).
 */
import type { APIGatewayProxyEvent, Context, SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import { catalog, type HttpFunctionSpec } from '../../functions/catalog.ts';
import { apiGatewayEvent, lambdaContext, type LambdaContextOptions, normalizeProxyResult, queueArn, sqsEvent } from '../../infra/local/lambda.ts';
import { matchRoute } from '../../infra/local/router.ts';
import type { HttpHandler as DeclaredHandler } from '../../shared/http/index.ts';

/** Parsed JSON bodies are loosely typed on purpose: tests read fields and assert on them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface ApiEventSpec {
  method?: string;
  /** Request path, e.g. `/api/customers/cus_01…`; may carry a query string (`?limit=2`). */
  path: string;
  /** Resource template; default: the catalog route matching method + path, else `path`. */
  resource?: string;
  headers?: Record<string, string | string[]>;
  /** An object or array is sent as JSON (and `Content-Type: application/json` added unless given). */
  body?: unknown;
  query?: Record<string, string | number | boolean | Array<string | number | boolean>>;
  /** Default: taken from the matched catalog route. */
  pathParameters?: Record<string, string> | null;
  sourceIp?: string;
}

const httpRoutes = catalog
  .filter((f): f is HttpFunctionSpec => f.trigger.type === 'http')
  .map((spec) => ({ method: spec.trigger.method, path: spec.trigger.path, name: spec.name }));

/** An API Gateway REST proxy event, as API Gateway would send it for this request. */
export function apiEvent(spec: ApiEventSpec): APIGatewayProxyEvent {
  const method = (spec.method ?? 'GET').toUpperCase();
  const q = spec.path.indexOf('?');
  const path = q === -1 ? spec.path : spec.path.slice(0, q);
  const search = new URLSearchParams(q === -1 ? '' : spec.path.slice(q + 1));
  for (const [k, v] of Object.entries(spec.query ?? {})) {
    for (const item of Array.isArray(v) ? v : [v]) search.append(k, String(item));
  }

  const match = matchRoute(httpRoutes, method, path);
  const resource = spec.resource ?? match?.resource ?? path;
  const pathParameters = spec.pathParameters !== undefined ? spec.pathParameters : (match?.pathParameters ?? null);

  const headers: Array<[string, string]> = [
    ['Host', 'localhost:3000'],
    ['User-Agent', 'vitest'],
  ];
  const setHeader = (name: string, value: string | string[]) => {
    for (let i = headers.length - 1; i >= 0; i--) if (headers[i]![0].toLowerCase() === name.toLowerCase()) headers.splice(i, 1);
    for (const v of Array.isArray(value) ? value : [value]) headers.push([name, v]);
  };
  for (const [name, value] of Object.entries(spec.headers ?? {})) setHeader(name, value);

  let body: string | null = null;
  if (typeof spec.body === 'string') body = spec.body;
  else if (spec.body !== undefined && spec.body !== null) {
    body = JSON.stringify(spec.body);
    if (!headers.some(([k]) => k.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
  }

  return apiGatewayEvent({
    method,
    path,
    resource,
    pathParameters,
    headers,
    rawQuery: search.toString(),
    body,
    sourceIp: spec.sourceIp ?? '127.0.0.1',
    domainName: 'localhost:3000',
    operationName: match && match.resource === resource ? match.route.name : undefined,
  });
}

/**
 * A Lambda context; `getRemainingTimeInMillis` counts down from the local deadline (`timeout` × LOCAL_TIMEOUT_FACTOR).
 * The default is a worker's usual 30 s: a test calling a worker without naming its timeout must not cut it at an API
 * function's 10 s on a loaded machine (a renewal under load ran past 30 s, Middy's early timeout).
 */
export function fakeContext(options: LambdaContextOptions = {}): Context {
  return lambdaContext({ timeout: 30, ...options });
}

export interface HttpResult {
  status: number;
  /** Lower-cased header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** All values of each (lower-cased) header, e.g. several `set-cookie`. */
  multiValueHeaders: Record<string, string[]>;
  /** Parsed JSON, or the raw text when the body is not JSON, or `undefined` when empty. */
  body: Json;
  rawBody: string;
}

type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => unknown;

/**
 * Invoke a handler with an event and read its proxy result. Fails the test on a malformed result, and on a 200 JSON
 * body that its declared response schema (`http({ response })`, the OpenAPI document's source) does not accept.
 */
export async function invokeHttp(handler: HttpHandler, event: APIGatewayProxyEvent, context: Context = fakeContext()): Promise<HttpResult> {
  const result = normalizeProxyResult(await handler(event, context));
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(result.headers)) (multiValueHeaders[name.toLowerCase()] ??= []).push(...values);
  const headers = Object.fromEntries(Object.entries(multiValueHeaders).map(([k, v]) => [k, v.join(', ')]));
  const rawBody = result.body.toString('utf8');
  let body: Json = undefined;
  if (rawBody !== '') {
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = rawBody;
    }
  }
  const declared = (handler as Partial<DeclaredHandler>).options?.response;
  if (declared && result.statusCode === 200) {
    const checked = v.safeParse(declared, body);
    if (!checked.success) throw new Error(`A 200 body does not match its response schema:\n${v.summarize(checked.issues)}\n${rawBody}`);
  }
  return { status: result.statusCode, headers, multiValueHeaders, body, rawBody };
}

/** The SQS event a queue's event source mapping sends for these message bodies (built as the local runtime builds it). */
export const queueEvent = (bodies: readonly unknown[], queueName: string): SQSEvent =>
  sqsEvent(
    bodies.map((body, i) => ({ MessageId: `m${i}`, ReceiptHandle: `r${i}`, Body: typeof body === 'string' ? body : JSON.stringify(body) })),
    queueArn(queueName),
  );
