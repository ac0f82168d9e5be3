import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, Context, ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FunctionSpec } from '../../functions/catalog.ts';
import { startGateway } from '../../infra/local/gateway.ts';
import { type HandlerLoader, LOCAL_TIMEOUT_FACTOR } from '../../infra/local/lambda.ts';
import { sqsClient } from '../../infra/local/services.ts';
import { startQueuePollers, startScheduleTimers } from '../../infra/local/workers.ts';
import { rawExchange, rawRequest } from '../support/raw-http.ts';
import { isRunning, RuntimeExited, startRuntimeProcess, type RuntimeProcess } from '../support/runtime.ts';

/** The gateway's 404, with the request id it also sends as the Request-Id header. */
const routeNotFound = async (res: Response) => {
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({
    error: { type: 'invalid_request_error', code: 'route_not_found', message: 'Resource not found', request_id: res.headers.get('request-id') },
  });
};

/** The exit code once the process has exited; fails after `ms` (waits on the exit event, no fixed sleeps). */
async function exitWithin(proc: RuntimeProcess, ms: number): Promise<number | NodeJS.Signals> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not exit within ${ms} ms:\n${proc.output()}`)), ms);
  });
  try {
    return await Promise.race([proc.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('npm start', () => {
  let runtime: RuntimeProcess | undefined;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
  });

  afterAll(() => runtime?.kill());

  it('serves the API with the printed demo key', async () => {
    const { url, apiKey } = runtime!;
    const res = await fetch(`${url}/api/customers`, { headers: { Authorization: `Bearer ${apiKey}` } });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toMatchObject({ data: expect.any(Array), has_more: false });
  });

  it('serves the dashboard at the printed URL, built at start, and sends / there', async () => {
    const { url, output } = runtime!;
    const page = await fetch(`${url}/dashboard`);
    const root = await fetch(`${url}/`, { redirect: 'manual' });
    expect(output()).toContain(`Dashboard      ${url}/dashboard`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/dashboard/assets/');
    expect(root.headers.get('location')).toBe('/dashboard');
  });

  it('answers 404 in the error shape for an unknown route and for a known path with another method', async () => {
    const unknown = await fetch(`${runtime!.url}/api/nope`);
    const wrongMethod = await fetch(`${runtime!.url}/api/customers`, { method: 'DELETE' });
    await routeNotFound(unknown);
    await routeNotFound(wrongMethod);
  });

  it('answers a malformed request line and a 70 KB header 400 in the error shape (raw socket)', async () => {
    // Act
    const line = await rawExchange(runtime!.url, 'GET /api/customers HTTP/7.0\r\nHost: x\r\n\r\n');
    const header = await rawExchange(runtime!.url, `GET /api/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${'x'.repeat(70_000)}\r\n\r\n`);
    // Assess
    for (const [res, message] of [
      [line, 'Invalid request body: the request line is malformed: the version must be HTTP/1.0 or HTTP/1.1'],
      [header, 'Invalid request body: the request line and headers are over 16 KB in all'],
    ] as const) {
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: { type: 'invalid_request_error', code: 'parameter_invalid', message, request_id: res.headers['request-id'] },
      });
    }
  });

  it('lists messages sent by handlers in /_local/outbox (handlers run in the gateway process)', async () => {
    const email = `e2e-${randomUUID()}@example.test`;
    const otp = await fetch(`${runtime!.url}/api/auth/request-otp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    const outbox = await fetch(`${runtime!.url}/_local/outbox`);
    const body = (await outbox.json()) as { data: Array<{ to: string }> };
    expect(otp.status).toBe(200);
    expect(outbox.status).toBe(200);
    expect(body.data.some((m) => m.to === email)).toBe(true);
  });

  it('stops everything on Ctrl-C (SIGINT to the process group) and exits 0, leaving no DynamoDB Local behind', async () => {
    const proc = runtime!;
    expect(isRunning(proc.dynamoPid)).toBe(true);
    proc.signal('SIGINT');
    const code = await exitWithin(proc, 90_000);
    // npm itself dies of the SIGINT (its own behaviour); the runtime under it prints "Stopped." right before exit(0).
    expect([0, 'SIGINT']).toContain(code);
    expect(proc.output()).toContain('Stopped.');
    expect(isRunning(proc.dynamoPid)).toBe(false);
  });
});

describe('local runtime process', () => {
  it('stops DynamoDB Local itself and exits 0 on SIGTERM sent to the runtime alone', async () => {
    // No npm/tsx wrapper and no process-group signal: the JVM gets no signal from outside, so only the
    // runtime's own shutdown can stop it.
    const proc = await startRuntimeProcess({ command: [process.execPath, '--import', 'tsx', 'infra/local/start.ts'] });
    try {
      proc.signal('SIGTERM', { only: true });
      const code = await exitWithin(proc, 90_000);
      expect(code).toBe(0);
      expect(isRunning(proc.dynamoPid)).toBe(false);
    } finally {
      proc.kill();
    }
  });
});

describe('npm start when a fake’s port is taken', () => {
  let taken: Server | undefined;
  afterAll(() => taken?.close());

  it('says which fake and which variable, stops what it started and exits 1', async () => {
    // Prepare: something already listens where the Adyen fake should
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    // Act: the runtime alone (no npm wrapper), so its exit code is its own
    const failed = await startRuntimeProcess({
      command: [process.execPath, '--import', 'tsx', 'infra/local/start.ts'],
      env: { ADYEN_FAKE_PORT: String(port) },
    }).then(
      (proc) => {
        proc.kill();
        throw new Error('the runtime started although the Adyen fake’s port was taken');
      },
      (error: unknown) => error,
    );
    // Assess
    expect(failed).toBeInstanceOf(RuntimeExited);
    const { code, output } = failed as RuntimeExited;
    expect(code).toBe(1);
    expect(output).toContain(`Port ${port} (the Adyen fake) is in use. Stop what is using it or pick another: ADYEN_FAKE_PORT=`);
    expect(output).toContain('Stopped.');
  }, 360_000);
});

describe('local runtime when DynamoDB Local dies', () => {
  it('says so loudly, stops everything and exits 1 when its DynamoDB Local is killed', async () => {
    // Prepare: the runtime alone (no npm wrapper), so its exit code is its own
    const proc = await startRuntimeProcess({ command: [process.execPath, '--import', 'tsx', 'infra/local/start.ts'] });
    try {
      const before = await fetch(`${proc.url}/api/customers`, { headers: { Authorization: `Bearer ${proc.apiKey}` } });
      expect(before.status).toBe(200);
      // Act: the JVM dies under it (out of memory, killed by the OS, …)
      process.kill(proc.dynamoPid, 'SIGKILL');
      const code = await exitWithin(proc, 90_000);
      // Assess
      expect(code).toBe(1);
      expect(proc.output()).toContain('DynamoDB Local killed by SIGKILL: the local API cannot work without it.');
      expect(proc.output()).toContain('Its in-memory data (tables, demo merchant, keys) is gone.');
      expect(proc.output()).toContain('Stopped.');
      await expect(fetch(`${proc.url}/api/customers`)).rejects.toThrow();
    } finally {
      proc.kill();
    }
  });
});

describe('queue pollers and schedule timers', () => {
  const sqs = sqsClient(inject('localEnv').AWS_ENDPOINT_URL_SQS!);
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  afterAll(() => sqs.destroy());

  it('invokes a queue function with SQS events and deletes all messages but the reported failures', async () => {
    // Prepare: a private queue (the run's real queues belong to other tests), three messages, one to fail.
    const queue = await sqs.send(new CreateQueueCommand({ QueueName: `poller-${randomUUID()}`, Attributes: { VisibilityTimeout: '60' } }));
    const queueUrl = queue.QueueUrl!;
    cleanups.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: ['ok-1', 'fail', 'ok-2'].map((body, i) => ({
          Id: String(i),
          MessageBody: body,
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } },
        })),
      }),
    );
    const spec: FunctionSpec = { name: 'workers/test-consumer', trigger: { type: 'queue', queue: 'events', batchSize: 10 }, memory: 256, timeout: 5 };
    const seen: SQSEvent['Records'] = [];
    let allSeen!: () => void;
    const done = new Promise<void>((resolve) => (allSeen = resolve));
    const loader: HandlerLoader = async () => async (event) => {
      const records = (event as SQSEvent).Records;
      seen.push(...records);
      if (seen.length >= 3) allSeen();
      return { batchItemFailures: records.filter((r) => r.body === 'fail').map((r) => ({ itemIdentifier: r.messageId })) } satisfies SQSBatchResponse;
    };
    // Act
    const pollers = startQueuePollers({ catalog: [spec], sqs, queueUrls: { EVENTS_QUEUE_URL: queueUrl }, loader, log: () => undefined });
    await done;
    const stopStarted = Date.now();
    await pollers.stop();
    const stopMs = Date.now() - stopStarted;
    const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }));
    // Assess
    expect(pollers.names).toEqual(['workers/test-consumer']);
    expect(seen.map((r) => r.body).sort()).toEqual(['fail', 'ok-1', 'ok-2']);
    expect(seen[0]).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:events',
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
      messageAttributes: { kind: { dataType: 'String', stringValue: 'test' } },
    });
    expect(attrs.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('1');
    expect(stopMs).toBeLessThan(3000);
    // Only the failed message is left: made visible again, it is the one and only message received.
    const failed = seen.find((r) => r.body === 'fail')!;
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: failed.receiptHandle, VisibilityTimeout: 0 }));
    const left = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(left.Messages?.map((m) => m.Body)).toEqual(['fail']);
  });

  it('fires a schedule function with EventBridge scheduled events and stops cleanly', async () => {
    const spec: FunctionSpec = {
      name: 'workers/test-sweeper',
      trigger: { type: 'schedule', expression: 'rate(5 minutes)', everyMinutesLocally: 1 },
      memory: 256,
      timeout: 5,
    };
    const events: ScheduledEvent[] = [];
    let twice!: () => void;
    const fired = new Promise<void>((resolve) => (twice = resolve));
    const loader: HandlerLoader = async () => async (event) => {
      events.push(event as ScheduledEvent);
      if (events.length === 2) twice();
    };
    const timers = startScheduleTimers({ catalog: [spec], loader, minuteMs: 20, log: () => undefined });
    await fired;
    await timers.stop();
    const count = events.length;
    expect(events[0]).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/payments-local-workers-test-sweeper'],
      detail: {},
    });
    expect(events[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Stopped: no further runs (an interval tick after stop would push another event).
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(events.length).toBe(count);
  });
});

describe('local gateway', () => {
  /** The gateway's 500, with the request id it also sends as the Request-Id header. */
  const internalError = async (res: Response) => {
    expect(res.status).toBe(500);
    expect(res.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({
      error: { type: 'api_error', code: 'internal_error', message: 'Internal server error', request_id: res.headers.get('request-id') },
    });
  };
  const fn = (name: string, method: 'GET' | 'POST', path: string, timeout = 5): FunctionSpec => ({
    name,
    trigger: { type: 'http', method, path, auth: 'merchant', summary: name },
    memory: 512,
    timeout,
  });
  const catalog = [
    fn('things/list', 'GET', '/api/things/list'),
    fn('things/get', 'GET', '/api/things/{id}'),
    fn('things/create', 'POST', '/api/things'),
    fn('things/crash', 'GET', '/api/crash'),
    fn('things/slow', 'GET', '/api/slow', 0.2),
    fn('things/bad-header', 'GET', '/api/bad-header'),
  ];
  const calls: Array<{ name: string; event: APIGatewayProxyEvent; context: Context }> = [];
  const loader: HandlerLoader = async (name) => async (event, context) => {
    calls.push({ name, event: event as APIGatewayProxyEvent, context });
    if (name === 'things/crash') throw new Error('boom: internal detail');
    if (name === 'things/slow') await new Promise((resolve) => setTimeout(resolve, 2000));
    // A header name HTTP cannot carry: the result cannot be written.
    if (name === 'things/bad-header') return { statusCode: 200, headers: { 'X-Ok': 'yes', 'Bad Name': 'x' }, body: '{}' };
    return {
      statusCode: 201,
      headers: { 'Content-Type': 'application/json' },
      multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
      body: JSON.stringify({ ok: name }),
    };
  };
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  beforeAll(async () => {
    gateway = await startGateway({ port: 0, catalog, loader, log: false, localRoutes: {} });
  });
  afterAll(() => gateway.close());
  afterEach(() => void calls.splice(0));

  it('turns a request into the API Gateway REST proxy event of the matched catalog function', async () => {
    const res = await fetch(`${gateway.url}/api/things/thing_1?tag=a&tag=b&limit=2`, {
      headers: { 'X-Custom': 'yes', 'User-Agent': 'e2e-agent' },
    });
    const { name, event, context } = calls[0]!;
    expect(res.status).toBe(201);
    expect(name).toBe('things/get');
    expect(event).toMatchObject({
      resource: '/api/things/{id}',
      path: '/api/things/thing_1',
      httpMethod: 'GET',
      pathParameters: { id: 'thing_1' },
      queryStringParameters: { tag: 'b', limit: '2' },
      multiValueQueryStringParameters: { tag: ['a', 'b'], limit: ['2'] },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        resourcePath: '/api/things/{id}',
        httpMethod: 'GET',
        path: '/api/things/thing_1', // served without a stage prefix, as behind a custom domain
        stage: 'local',
        identity: { sourceIp: '127.0.0.1', userAgent: 'e2e-agent' },
      },
    });
    expect(event.headers['X-Custom']).toBe('yes');
    expect(event.multiValueHeaders['X-Custom']).toEqual(['yes']);
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(event.requestContext.requestTimeEpoch - Date.now())).toBeLessThan(10_000);
    expect(context.functionName).toBe('payments-local-things-get');
    // its 5 s timeout, as a local deadline
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(5000 * LOCAL_TIMEOUT_FACTOR);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(5000 * (LOCAL_TIMEOUT_FACTOR - 1));
  });

  it('prefers the literal route and sends null parameters when there are none', async () => {
    await fetch(`${gateway.url}/api/things/list`);
    expect(calls[0]!.name).toBe('things/list');
    expect(calls[0]!.event).toMatchObject({ pathParameters: null, queryStringParameters: null, multiValueQueryStringParameters: null });
  });

  it('passes the body as a string and writes headers and multi-value headers back', async () => {
    const res = await fetch(`${gateway.url}/api/things`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(calls[0]!.event.body).toBe('{"name":"x"}');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ ok: 'things/create' });
  });

  it('answers 500 in the error shape when a handler throws or times out, without leaking details', async () => {
    const crash = await fetch(`${gateway.url}/api/crash`);
    const slow = await fetch(`${gateway.url}/api/slow`);
    await internalError(crash);
    await internalError(slow);
  });

  it("answers its own 500 with request_id when a handler's result cannot be written, without the half-written headers", async () => {
    const res = await fetch(`${gateway.url}/api/bad-header`);
    expect(res.headers.get('x-ok')).toBeNull();
    await internalError(res);
  });

  it('passes query keys and header names such as constructor, __proto__, toString as ordinary keys', async () => {
    // Prepare
    const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
    const query = names.map((n, i) => `${n}=${i}&${n}=${i}b`).join('&');
    const headers = [...names.map((n, i): [string, string] => [n, `h${i}`]), ['constructor', 'again'] as const];
    // Act
    const res = await rawRequest(gateway.url, { path: `/api/things/list?${query}`, headers });
    // Assess
    expect(res.status).toBe(201);
    const { event } = calls[0]!;
    // [name, own value] pairs: a literal `{ __proto__: … }` would set a prototype, not a key.
    const own = (map: Record<string, unknown> | null) => names.map((n) => [n, Object.hasOwn(map ?? {}, n) ? map![n] : 'missing']);
    expect(own(event.queryStringParameters)).toEqual([
      ['constructor', '0b'],
      ['__proto__', '1b'],
      ['toString', '2b'],
      ['hasOwnProperty', '3b'],
      ['valueOf', '4b'],
    ]);
    expect(own(event.multiValueQueryStringParameters)).toEqual(names.map((n, i) => [n, [`${i}`, `${i}b`]]));
    // Names as sent (first spelling of a repeated one), the last value in `headers`, every value in `multiValueHeaders`.
    expect(own(event.headers)).toEqual([
      ['constructor', 'again'],
      ['__proto__', 'h1'],
      ['toString', 'h2'],
      ['hasOwnProperty', 'h3'],
      ['valueOf', 'h4'],
    ]);
    expect(own(event.multiValueHeaders)).toEqual([
      ['constructor', ['h0', 'again']],
      ['__proto__', ['h1']],
      ['toString', ['h2']],
      ['hasOwnProperty', ['h3']],
      ['valueOf', ['h4']],
    ]);
    expect(Object.getPrototypeOf(event.headers)).toBe(Object.prototype);
  });

  it.each([
    ['a 70 KB header', 'GET /api/things/list HTTP/1.1\r\nHost: x\r\nX-Big: ' + 'x'.repeat(70_000) + '\r\n\r\n', /over 16 KB/],
    [
      'a malformed request line',
      'GET /api/things/list HTTP/9.9\r\nHost: x\r\n\r\n',
      /^Invalid request body: the request line is malformed: the version/,
    ],
    ['an unknown method', 'GARBAGE\r\n\r\n', /^Invalid request body: the request line is malformed: /],
    [
      'a header line without a colon',
      'GET /api/things/list HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n',
      /^Invalid request body: a header line is malformed/,
    ],
  ])('answers %s, which HTTP parsing refuses, 400 in the error shape with a request id and the reason', async (_what, bytes, reason) => {
    // Act
    const res = await rawExchange(gateway.url, bytes);
    // Assess
    expect(res.status).toBe(400);
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: expect.stringMatching(reason),
        request_id: res.headers['request-id'],
      },
    });
    expect(calls).toEqual([]);
  });

  it('answers 70 KB of headers sent by an HTTP client 400, the answer read whole', async () => {
    // Act
    const res = await rawRequest(gateway.url, { path: '/api/things/list', headers: [['X-Big', 'x'.repeat(70_000)]] });
    // Assess
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: 'Invalid request body: the request line and headers are over 16 KB in all',
        request_id: res.headers['request-id'],
      },
    });
  });

  it('answers 404 (not 500) for documentation assets named like Object.prototype members', async () => {
    const res = await fetch(`${gateway.url}/docs/constructor`);
    await routeNotFound(res);
  });

  it('answers 404 for an unknown route and for a known path with another method, without calling a handler', async () => {
    const unknown = await fetch(`${gateway.url}/api/unknown`);
    const wrongMethod = await fetch(`${gateway.url}/api/things/list`, { method: 'POST', body: '{}' });
    await routeNotFound(unknown);
    await routeNotFound(wrongMethod);
    expect(calls).toEqual([]);
  });
});
