/**
 * Capacity per operation: each operation runs once to warm the container's caches (API key `last_used` touch,
 * routing statistics, rules), then once recorded. Handlers run in this process as Lambda would run them.
 */
import type { SQSEvent } from 'aws-lambda';
import { handler as createInvoice } from '../functions/invoices/create.ts';
import { handler as configureWebhook } from '../functions/webhooks/configure.ts';
import { handler as listWebhookEvents } from '../functions/webhooks/events.ts';
import { handler as deliveryWorker } from '../functions/workers/webhook-delivery.ts';
import { eventsQueue, type EventsMessage } from '../shared/events/queue.ts';
import { apiEvent, fakeContext, invokeHttp, type HttpResult } from '../test/support/lambda.ts';
import { bearer, newMerchant } from '../test/support/merchant.ts';
import { cardBody, paymentMethods, publishableKeyOf } from '../test/support/payment-methods.ts';
import { freshCard, paymentBody, payments } from '../test/support/payments.ts';
import { startReceiver } from '../test/support/receiver.ts';
import { streamEvents } from '../test/support/stream.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { db, TABLE } from '../shared/store/client.ts';
import { paymentKeys } from '../shared/store/keys.ts';
import { type Call, record } from './dynamo.ts';
import { itemBytes } from './model.ts';
import { laterFlows } from './later-flows.ts';
import { linkFlows } from './link-flows.ts';
import { teamFlows } from './team-flows.ts';

/** The default create: smart routing (which evaluates the merchant's rules, read with its accounts in one query whatever the routing), a new card. */
export const SMART_ROUTED_CREATE = 'payment create, smart routing, a new card put on file';
/** The merchant's server saving a card for a customer with its secret key (the vault's units apart). */
export const PM_CREATE = 'payment method create, for a customer';
/** A create charging a customer's saved card again: its token at the account, no CVC left. */
export const PM_CHARGE = 'payment create with pm_, charged again';
/** The first charge of a saved card: the vault's CVC used and forgotten, the account's token kept with the commit. */
export const PM_FIRST_CHARGE = 'payment create with pm_, its first charge';

export interface OperationCapacity {
  operation: string;
  requests: number;
  /** the main table's units */
  rcu: number;
  wcu: number;
  /** the card vault's units, counted apart */
  vaultRcu: number;
  vaultWcu: number;
  /** e.g. `UpdateItem RATE 1W` */
  calls: string[];
}

const ok = (res: HttpResult): HttpResult => {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.rawBody}`);
  return res;
};

const units = (calls: Call[], unit: 'rcu' | 'wcu') => calls.reduce((s, c) => s + c[unit], 0);
const summarize = (operation: string, calls: Call[]): OperationCapacity => {
  const main = calls.filter((c) => !c.vault);
  const vault = calls.filter((c) => c.vault);
  return {
    operation,
    requests: calls.length,
    rcu: units(main, 'rcu'),
    wcu: units(main, 'wcu'),
    vaultRcu: units(vault, 'rcu'),
    vaultWcu: units(vault, 'wcu'),
    calls: calls.map((c) => `${c.command} ${c.vault ? 'vault:' : ''}${c.keys.join(',')} ${c.wcu ? `${c.wcu}W` : `${c.rcu}R`}`),
  };
};

const RUNS = 3;
const wcu = (calls: Call[]) => calls.reduce((s, c) => s + c.wcu, 0);

/**
 * Runs `op` once to warm up, then RUNS times recorded; returns the calls of the run with the median WCU (DynamoDB
 * Local's accounting of one transaction varies by a few units from run to run).
 */
async function steady(op: () => Promise<unknown>): Promise<Call[]> {
  await op();
  const runs: Call[][] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await record(op));
  return runs.sort((a, b) => wcu(a) - wcu(b))[Math.floor(RUNS / 2)]!;
}

const sqsEvent = (messages: EventsMessage[]) =>
  ({
    Records: messages.map((m, i) => ({
      messageId: String(i),
      receiptHandle: String(i),
      body: JSON.stringify(m),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'bench', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:events',
      awsRegion: 'us-east-1',
    })),
  }) as SQSEvent;

export interface CapacityResult {
  operations: OperationCapacity[];
  /** the recorded calls of one steady-state create, for the round-trip replay */
  createCalls: Call[];
  /** the recorded calls of a payment method create and of the creates charging one, likewise */
  pmCreateCalls: Call[];
  pmChargeCalls: Call[];
  pmFirstChargeCalls: Call[];
  getCalls: Call[];
  /** a created payment's item as its commit left it */
  committedPaymentBytes: number;
}

export async function benchCapacity(): Promise<CapacityResult> {
  const { apiKey, customerId, merchantId } = await newMerchant();
  const create = async (headers?: Record<string, string>, card = freshCard(), body: Record<string, unknown> = {}) =>
    ok(await payments.create(apiKey, paymentBody(body, card), headers)).body.id as string;
  // A returning customer paying with the card already on file (the warm-up run puts it there): the usual create. Its
  // provider is named, which reads and writes what smart routing does: smart routing may pick another provider from
  // one run to the next as the sandbox's measured latencies move, and a card is on file for one provider.
  const onFile = freshCard();
  const ids = await Promise.all(Array.from({ length: RUNS + 1 }, () => create()));
  const committed = await db.send(new GetCommand({ TableName: TABLE, Key: paymentKeys.item(ids[0]!) }));
  const committedPaymentBytes = itemBytes(marshall(committed.Item!, { removeUndefinedValues: true }));
  const toCapture = [...ids];
  const toRefund = await Promise.all(Array.from({ length: RUNS + 1 }, () => create()));
  for (const id of toRefund) ok(await payments.capture(apiKey, id));

  const createCalls = await steady(() => create(undefined, onFile, { routing: 'stripe' }));
  const getCalls = await steady(() => payments.get(apiKey, ids[0]!).then(ok));
  const operations = [
    summarize('payment create', createCalls),
    summarize(SMART_ROUTED_CREATE, await steady(() => create())),
    summarize('payment create + Idempotency-Key', await steady(() => create({ 'Idempotency-Key': crypto.randomUUID() }))),
    summarize('payment get', getCalls),
    summarize('payment list (10)', await steady(() => payments.list(apiKey, { limit: '10' }).then(ok))),
    summarize('payment capture', await steady(async () => ok(await payments.capture(apiKey, toCapture.pop()!)))),
    summarize('payment refund', await steady(async () => ok(await payments.refund(apiKey, toRefund.pop()!, { amount: 500 })))),
  ];

  const saved = await savedCards(apiKey, customerId);
  operations.push(...saved.operations);
  await laterFlows(apiKey, customerId, async (name, op) => void operations.push(summarize(name, await steady(op))));
  await teamFlows(async (name, op) => void operations.push(summarize(name, await steady(op))), RUNS + 1);
  await linkFlows(apiKey, async (name, op) => void operations.push(summarize(name, await steady(op))), RUNS + 1);

  const due = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const invoice = {
    customer_id: customerId,
    items: [{ name: 'Consulting (hours)', amount: 1999, quantity: 3 }],
    currency: 'usd',
    due_date: due,
    tax_rate: 7.25,
  };
  const invoiceCall = () =>
    invokeHttp(createInvoice, apiEvent({ method: 'POST', path: '/api/invoices', headers: bearer(apiKey), body: invoice })).then(ok);
  operations.push(summarize('invoice create', await steady(invoiceCall)));

  // Webhook delivery: the events worker handling one `payment.succeeded` with one endpoint (a local receiver). Events
  // created before this point are left on the stream (streamEvents takes this merchant's since its last call).
  const receiver = await startReceiver([200]);
  const realSend = eventsQueue.send;
  const sent: EventsMessage[] = [];
  eventsQueue.send = async (messages) => void sent.push(...messages);
  try {
    ok(
      await invokeHttp(
        configureWebhook,
        apiEvent({
          method: 'POST',
          path: '/api/webhooks/configure',
          headers: bearer(apiKey),
          body: { url: receiver.url, events: ['payment.succeeded'] },
        }),
      ),
    );
    const events: EventsMessage[][] = [];
    for (let i = 0; i <= RUNS; i++) {
      await create();
      // the table stream's consumer sends the create's event to the queue (captured here)
      await streamEvents(merchantId);
      events.push(sent.splice(0));
    }
    operations.push(
      summarize(
        'webhook delivery (1 event, 1 endpoint)',
        await steady(() => deliveryWorker(sqsEvent(events.pop()!), fakeContext({ name: 'workers/webhook-delivery' }))),
      ),
    );
    if (receiver.received.length !== RUNS + 1) throw new Error(`the receiver got ${receiver.received.length} deliveries, expected ${RUNS + 1}`);
    // A page of the delivery log: its events are listed over EVENT_LIST_SHARDS index partitions, each read
    const eventsPage = () =>
      invokeHttp(listWebhookEvents, apiEvent({ method: 'GET', path: '/api/webhooks/events', headers: bearer(apiKey), query: { limit: '10' } }));
    operations.push(summarize('webhook events list (10)', await steady(async () => ok(await eventsPage()))));
  } finally {
    eventsQueue.send = realSend;
    await receiver.close();
  }
  return { operations, createCalls, getCalls, committedPaymentBytes, ...saved.calls };
}

/**
 * Saved cards: payment methods saved with the merchant's publishable key (the endpoint allows 30 a minute per key
 * and IP; this makes 14) and, for a customer, with its secret key; and creates charging a customer's saved card (`payment_method: "pm_…"`, naming its
 * provider as the usual create does), the first time and again.
 */
async function savedCards(apiKey: string, customerId: string) {
  const publishable = await publishableKeyOf(apiKey);
  const save = async (body: Record<string, unknown> = {}) =>
    ok(await paymentMethods.create(publishable, cardBody(freshCard(), body))).body.id as string;
  // a publishable key names no customer: the merchant's server saves a customer's card with its secret key
  const saveFor = async (customer: string) =>
    ok(await paymentMethods.create(apiKey, cardBody(freshCard(), { customer_id: customer }))).body.id as string;
  const charge = async (pm: string) => ok(await payments.create(apiKey, { amount: 2500, currency: 'usd', payment_method: pm, routing: 'stripe' }));
  const unused = await Promise.all(Array.from({ length: RUNS + 1 }, () => saveFor(customerId)));
  const chargedBefore = await saveFor(customerId);
  const pmCreateCalls = await steady(() => saveFor(customerId));
  const pmChargeCalls = await steady(() => charge(chargedBefore));
  const pmFirstChargeCalls = await steady(() => charge(unused.pop()!));
  return {
    operations: [
      summarize('payment method create', await steady(() => save())),
      summarize(PM_CREATE, pmCreateCalls),
      summarize(PM_CHARGE, pmChargeCalls),
      summarize(PM_FIRST_CHARGE, pmFirstChargeCalls),
    ],
    calls: { pmCreateCalls, pmChargeCalls, pmFirstChargeCalls },
  };
}
