import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { setTimeout } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
// The stream and queue pollers read across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('event-stream', { queues: true }));
import { catalog } from '../../functions/catalog.ts';
import { handler as configure } from '../../functions/webhooks/configure.ts';
import { handler as eventStream } from '../../functions/workers/event-stream.ts';
import { handler as delivery } from '../../functions/workers/webhook-delivery.ts';
import type { HandlerLoader, LambdaHandler } from '../../infra/local/lambda.ts';
import { startStreamPollers } from '../../infra/local/stream.ts';
import { startQueuePollers, type Workers } from '../../infra/local/workers.ts';
import { eventsQueue } from '../../shared/events/queue.ts';
import { listEvents } from '../../shared/store/events.ts';
import { TABLE } from '../../shared/store/client.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { paymentBody, payments } from '../support/payments.ts';
import { startReceiver } from '../support/receiver.ts';

const realSend = eventsQueue.send;
const running: Workers[] = [];
afterEach(async () => {
  eventsQueue.send = realSend;
  await Promise.all(running.splice(0).map((w) => w.stop()));
});

const PAYMENTS = 15;
const EVENTS_PER_PAYMENT = ['payment.succeeded', 'payment.captured', 'payment.refunded'];

describe('events through the table stream', () => {
  it('delivers every event once, in order per object, when the stream consumer is killed mid-batch and its send fails', async () => {
    // Prepare: a merchant with an endpoint, and the local runtime's stream and queue pollers (what `npm start` runs)
    const { apiKey, merchantId } = await newMerchant();
    const receiver = await startReceiver([200]);
    const hook = await invokeHttp(
      configure,
      apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: bearer(apiKey), body: { url: receiver.url, events: ['*'] } }),
    );
    const faults = { killed: 0, sendFailed: 0 };
    const streamed = new Set<string>();
    // The pollers take this merchant's records only, and acknowledge any other message without delivering it.
    const loader: HandlerLoader = async (name) => {
      if (name === 'workers/event-stream') {
        return (async (event: DynamoDBStreamEvent, context) => {
          const mine = event.Records.filter((r: DynamoDBRecord) => r.dynamodb?.NewImage?.merchant_id?.S === merchantId);
          for (const r of mine) streamed.add(r.dynamodb!.NewImage!.sk!.S!.replace(/^EVT#/, '')); // an event item's id is its sort key's
          if (mine.length >= 2 && faults.killed === 0) {
            // Killed mid-batch: half of a send reached the queue, then the process died (no answer to Lambda)
            faults.killed++;
            eventsQueue.send = async (messages) => {
              await realSend(messages.slice(0, Math.ceil(messages.length / 2)));
              throw new Error('killed');
            };
            await eventStream({ Records: mine }, context).finally(() => (eventsQueue.send = realSend));
            throw new Error('the stream consumer was killed mid-batch');
          }
          if (mine.length >= 2 && faults.sendFailed === 0) {
            // The queue is unreachable for one send: the consumer reports the batch's first record as failed
            faults.sendFailed++;
            eventsQueue.send = async () => {
              throw new Error('SQS unreachable');
            };
            return eventStream({ Records: mine }, context).finally(() => (eventsQueue.send = realSend));
          }
          return eventStream({ Records: mine }, context);
        }) as LambdaHandler;
      }
      return (async (event: SQSEvent, context) => {
        const mine = event.Records.filter((r) => streamed.has((JSON.parse(r.body) as { event_id: string }).event_id));
        return delivery({ Records: mine }, context);
      }) as LambdaHandler;
    };
    const specs = catalog.filter((f) => f.name === 'workers/event-stream' || f.name === 'workers/webhook-delivery');
    const queueUrls = { EVENTS_QUEUE_URL: process.env.EVENTS_QUEUE_URL!, EVENTS_DLQ_URL: process.env.EVENTS_DLQ_URL! };
    const sqs = new SQSClient({});
    const quiet = () => undefined;
    running.push(
      await startStreamPollers({
        catalog: specs,
        dynamo: new DynamoDBClient({}),
        dynamoEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!,
        tableName: TABLE,
        sqs,
        queueUrls,
        loader,
        log: quiet,
      }),
      startQueuePollers({ catalog: specs, sqs, queueUrls, loader, log: quiet }),
    );

    // Act: payments made, captured and partly refunded at once, three events each
    const ids = await Promise.all(
      Array.from({ length: PAYMENTS }, async () => {
        const created = await payments.create(apiKey, paymentBody());
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const id = created.body.id as string;
        expect((await payments.capture(apiKey, id)).status).toBe(200);
        expect((await payments.refund(apiKey, id, { amount: 500 })).status).toBe(200);
        return id;
      }),
    );
    const webhookIds = () => new Set(receiver.received.map((r) => r.headers['webhook-id']));
    // every event arrived, or the deadline passed (then the assertions below name what is missing)
    await Promise.race([receiver.waitUntil(() => webhookIds().size >= PAYMENTS * EVENTS_PER_PAYMENT.length), setTimeout(90_000)]);

    // Assess: both faults happened, and every committed event reached the endpoint, signed, once, in order per payment
    expect(faults).toEqual({ killed: 1, sendFailed: 1 });
    const committed = (await listEvents(testOwner(merchantId), {}, { limit: 100 })).data;
    expect(committed).toHaveLength(PAYMENTS * EVENTS_PER_PAYMENT.length);
    const firstOfEach = new Map<string, { type: string; data: { object: { id: string; sequence: number } } }>();
    for (const r of receiver.received) {
      const id = String(r.headers['webhook-id']);
      const event = new Webhook(hook.body.secret).verify(r.body, r.headers as Record<string, string>) as never;
      if (!firstOfEach.has(id)) firstOfEach.set(id, event);
    }
    expect([...firstOfEach.keys()].sort()).toEqual(committed.map((e) => e.id).sort());
    for (const id of ids) {
      const received = [...firstOfEach.values()].filter((e) => e.data.object.id === id);
      expect(received.map((e) => e.type)).toEqual(EVENTS_PER_PAYMENT);
      const sequences = received.map((e) => e.data.object.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    }
    await receiver.close();
  }, 180_000);
});
