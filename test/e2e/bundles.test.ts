import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The stream and queue pollers read across every merchant: this file's own table and queues hold only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('bundles', { queues: true }));
import { catalog, handlerFile } from '../../functions/catalog.ts';
import { bundleFunction } from '../../infra/bundle.ts';
import { buildBrowserScripts } from '../../shared/hosted/browser-scripts.ts';
import { type Gateway, startGateway } from '../../infra/local/gateway.ts';
import type { HandlerLoader, LambdaHandler } from '../../infra/local/lambda.ts';
import { startStreamPollers } from '../../infra/local/stream.ts';
import { startQueuePollers, type Workers } from '../../infra/local/workers.ts';
import { TABLE } from '../../shared/store/client.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { newMerchant } from '../support/merchant.ts';
import { paymentBody } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';

/**
 * The functions as Lambda runs them: each built by infra/bundle.ts, the stack's build (code split into chunks), and
 * imported from its index.mjs, behind the local gateway and the stream and queue pollers. A merchant's flow through
 * them loads, on first use, chunks a cold start leaves out: Stripe's SDK (a connected account), the SQS client (the
 * stream consumer) and pdf-lib (an invoice's PDF).
 */
const out = mkdtempSync(join(tmpdir(), 'bundles-'));
const built = new Map<string, Promise<LambdaHandler>>();
const bundled: HandlerLoader = (name) => {
  let handler = built.get(name);
  if (!handler) {
    const dir = join(out, name);
    if (!existsSync(join(dir, 'index.mjs'))) bundleFunction(handlerFile(name), dir);
    handler = import(pathToFileURL(join(dir, 'index.mjs')).href).then((module: { handler: LambdaHandler }) => module.handler);
    built.set(name, handler);
  }
  return handler;
};

let fakes: ProviderFakes;
let gateway: Gateway;
const running: Workers[] = [];
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(process.env, fakes.env); // before any bundle reads its configuration
  gateway = await startGateway({ port: 0, catalog, loader: bundled, log: false });
});
afterAll(async () => {
  await Promise.all([...running.map((w) => w.stop()), gateway.close(), fakes.close()]);
  rmSync(out, { recursive: true, force: true });
});

const call = async (apiKey: string | null, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
};
const json = (res: { bytes: Buffer }) => JSON.parse(res.bytes.toString('utf8')) as Record<string, unknown>;

/** The stream and queue pollers on the bundled workers, handling this merchant's records and events only. */
async function startWorkers(merchantId: string): Promise<void> {
  const streamed = new Set<string>();
  const loader: HandlerLoader = async (name) => {
    const handler = await bundled(name);
    if (name === 'workers/event-stream') {
      return (async (event: DynamoDBStreamEvent, context) => {
        const mine = event.Records.filter((r: DynamoDBRecord) => r.dynamodb?.NewImage?.merchant_id?.S === merchantId);
        for (const r of mine) streamed.add(r.dynamodb!.NewImage!.sk!.S!.replace(/^EVT#/, '')); // an event item's id is its sort key's
        return handler({ Records: mine }, context);
      }) as LambdaHandler;
    }
    return (async (event: SQSEvent, context) =>
      handler(
        { Records: event.Records.filter((r) => streamed.has((JSON.parse(r.body) as { event_id: string }).event_id)) },
        context,
      )) as LambdaHandler;
  };
  const specs = catalog.filter((f) => f.name === 'workers/event-stream' || f.name === 'workers/webhook-delivery');
  const queueUrls = { EVENTS_QUEUE_URL: process.env.EVENTS_QUEUE_URL!, EVENTS_DLQ_URL: process.env.EVENTS_DLQ_URL! };
  const sqs = new SQSClient({});
  const dynamo = { dynamo: new DynamoDBClient({}), dynamoEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!, tableName: TABLE };
  const quiet = () => undefined;
  running.push(
    await startStreamPollers({ catalog: specs, ...dynamo, sqs, queueUrls, loader, log: quiet }),
    startQueuePollers({ catalog: specs, sqs, queueUrls, loader, log: quiet }),
  );
}

describe('the functions as built for Lambda', () => {
  it('connect Stripe, take a payment through it, deliver its signed webhook, and render an invoice PDF', async () => {
    // Prepare: a merchant with a customer, an endpoint, and the bundled workers
    const { apiKey, merchantId, customerId } = await newMerchant();
    const receiver = await startReceiver([200]);
    const hook = await call(apiKey, 'POST', '/api/webhooks/configure', { url: receiver.url, events: ['payment.succeeded'] });
    expect(hook.status).toBe(200);
    await startWorkers(merchantId);
    try {
      // Act: Stripe connected (its SDK verifies the key at the fake), a payment forced through it, an invoice
      const connector = await call(apiKey, 'POST', '/api/connectors', { provider: 'stripe', credentials: fakes.credentials.stripe, label: 'Stripe' });
      const payment = await call(apiKey, 'POST', '/api/payments/create', paymentBody({ routing: 'stripe' }));
      const invoice = await call(apiKey, 'POST', '/api/invoices', {
        customer_id: customerId,
        items: [{ name: 'Consulting', amount: 1999, quantity: 1 }],
        currency: 'USD',
        due_date: '2027-01-31',
        tax_rate: 0,
      });
      await receiver.waitFor(1);

      // Assess: the payment went through the connected account; its event arrived signed; the PDF is a PDF
      expect(connector.status).toBe(200);
      expect(payment.status).toBe(200);
      expect(json(payment)).toMatchObject({ status: 'succeeded', provider: 'stripe', connector_id: json(connector).id });
      const [delivered] = receiver.received;
      const event = new Webhook(json(hook).secret as string).verify(delivered!.body, delivered!.headers as Record<string, string>) as {
        type: string;
        data: { object: { id: string } };
      };
      expect(event).toMatchObject({ type: 'payment.succeeded', data: { object: { id: json(payment).id } } });
      expect(invoice.status).toBe(200);
      const { pathname, search } = new URL(json(invoice).pdf_url as string);
      const pdf = await call(null, 'GET', pathname + search);
      expect(pdf.status).toBe(200);
      expect(pdf.type).toBe('application/pdf');
      expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    } finally {
      await receiver.close();
    }
  }, 360_000);

  it('serve the card fields scripts built into their bundles, as built from their source', async () => {
    // Act: the script a checkout page includes, and the card fields page's own, each from its bundled function
    const [mount, frame] = await Promise.all([call(null, 'GET', '/hosted/card-fields.js'), call(null, 'GET', '/hosted/card-fields-frame.js')]);
    // Assess: the scripts as built from shared/hosted/browser, with no esbuild nor source beside the bundles
    const built = buildBrowserScripts();
    expect([mount.status, mount.type, mount.bytes.toString('utf8')]).toEqual([200, 'text/javascript; charset=utf-8', built['card-fields']]);
    expect([frame.status, frame.type, frame.bytes.toString('utf8')]).toEqual([200, 'text/javascript; charset=utf-8', built['card-fields-frame']]);
  }, 360_000);
});
