/**
 * X-Ray tracing as Lambda runs it with active tracing: the runtime puts each invocation's trace header in
 * `_X_AMZN_TRACE_ID`, and the X-Ray SDK sends what it records over UDP to the daemon (a socket of this test). The
 * Tracer is loaded by the first sampled invocation (shared/tracer.ts), so it must then trace that invocation and every
 * later one, and record nothing of an invocation X-Ray does not sample.
 */
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as getCustomer } from '../../functions/customers/get.ts';
import { apiEvent, fakeContext, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';

interface Subsegment {
  name: string;
  trace_id: string;
  annotations?: Record<string, unknown>;
  aws?: { operation?: string };
}

const daemon = createSocket('udp4');
const received: Subsegment[] = [];
const waiting: Array<() => void> = [];
daemon.on('message', (datagram) => {
  // a header line, then the document
  received.push(JSON.parse(datagram.toString('utf8').split('\n')[1]!) as Subsegment);
  for (const wake of waiting.splice(0)) wake();
});

/** The handler subsegment of one trace, once the daemon has it. */
async function handlerSegmentOf(traceId: string): Promise<Subsegment> {
  for (;;) {
    const found = received.find((s) => s.trace_id === traceId && s.name === '## index.handler');
    if (found) return found;
    await new Promise<void>((wake) => waiting.push(wake));
  }
}

const traceId = () => `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

/** One invocation as the Lambda runtime starts it: its trace header set, from a task of its own. */
const invoke = (trace: string, sampled: boolean, event: Parameters<typeof invokeHttp>[1]) =>
  new Promise<Awaited<ReturnType<typeof invokeHttp>>>((resolve, reject) =>
    setImmediate(() => {
      process.env._X_AMZN_TRACE_ID = `Root=${trace};Parent=${randomBytes(8).toString('hex')};Sampled=${sampled ? 1 : 0}`;
      invokeHttp(getCustomer, event, fakeContext({ name: 'customers/get' })).then(resolve, reject);
    }),
  );

const LAMBDA_ENV = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  LAMBDA_TASK_ROOT: '/var/task',
  _HANDLER: 'index.handler',
};

beforeAll(async () => {
  await new Promise<void>((listening) => daemon.bind(0, '127.0.0.1', listening));
  Object.assign(process.env, LAMBDA_ENV, { AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}` });
});
afterAll(() => {
  for (const name of [...Object.keys(LAMBDA_ENV), 'AWS_XRAY_DAEMON_ADDRESS', '_X_AMZN_TRACE_ID']) delete process.env[name];
  daemon.close();
});

describe('tracing', () => {
  it('records nothing of an unsampled invocation; from the first sampled one on, each has its handler, DynamoDB calls and merchant', async () => {
    // Prepare
    const { apiKey, customerId, merchantId } = await newMerchant();
    const event = apiEvent({ path: `/api/customers/${customerId}`, headers: bearer(apiKey) });
    const [unsampled, first, second] = [traceId(), traceId(), traceId()];

    // Act: the container's first invocation is not sampled, the next two are
    const answers = [await invoke(unsampled, false, event), await invoke(first, true, event), await invoke(second, true, event)];

    // Assess
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    for (const trace of [first, second]) {
      const segment = await handlerSegmentOf(trace);
      expect(segment.annotations).toMatchObject({ merchant: merchantId, Service: 'payments-api' });
      // in Lambda the SDK sends each subsegment as it closes: the calls are documents of their own in the trace
      const calls = received.filter((s) => s.trace_id === trace && s.name === 'DynamoDB').map((s) => s.aws?.operation);
      expect(calls).toEqual(['GetItem', 'GetItem']);
    }
    // the first traced invocation was not the container's first: not a cold start
    expect((await handlerSegmentOf(first)).annotations?.ColdStart).toBe(false);
    expect(received.filter((s) => s.trace_id === unsampled)).toEqual([]);
  });
});
