import * as v from 'valibot';
import { config } from '../config.ts';
import { sendJson, sendOneJson } from '../queues-client.ts';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { logger } from '../logger.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

const EventId = v.pipe(v.string(), v.startsWith('evt_'));
/** the object the event reports, where the event is stored */
const ObjectId = v.pipe(v.string(), v.minLength(1), v.maxLength(100));

/** What travels on the `events` queue: a new event to fan out, or one endpoint's retry. */
const EventsMessageSchema = v.variant('kind', [
  v.object({
    kind: v.literal('event'),
    event_id: EventId,
    object_id: ObjectId,
    /** whose event it is, so its endpoints are read beside it */
    merchant_id: v.pipe(v.string(), v.startsWith('mer_')),
    livemode: v.boolean(),
  }),
  v.object({
    kind: v.literal('retry'),
    event_id: EventId,
    object_id: ObjectId,
    webhook_id: v.pipe(v.string(), v.startsWith('whk_')),
    attempt: Count,
    first_attempt_at: Count,
    due_at: Count,
  }),
]);
export type EventsMessage = v.InferOutput<typeof EventsMessageSchema>;

/** A message body from the `events` queue, checked at the boundary (a malformed one fails its record: SQS retries it, then dead-letters it). */
export const parseEventsMessage = (body: string): EventsMessage => v.parse(EventsMessageSchema, JSON.parse(body));

/** SQS caps a message delay at 15 minutes; longer waits are walked in hops. */
export const MAX_DELAY_SECONDS = 900;

/** The send to the events queue. A seam for fault injection in tests: a change's event must survive its loss. */
export const eventsQueue = {
  send: (messages: EventsMessage[], delaySeconds = 0): Promise<void> =>
    sendJson(config.EVENTS_QUEUE_URL, 'events', messages, Math.min(delaySeconds, MAX_DELAY_SECONDS)),
  deadLetter: (message: EventsMessage, reason: string): Promise<void> => sendOneJson(config.EVENTS_DLQ_URL, 'events dead-letter', { ...message, reason }),
};

/**
 * One batch of the events queue: one object's messages are handled one after another in the order they came, other
 * objects' at the same time (a slow endpoint holds up only its own object). A message that fails fails the rest of
 * its object's with it: SQS hands them back, still behind it.
 */
export async function handleInObjectOrder(records: readonly SQSRecord[], handle: (message: EventsMessage) => Promise<void>): Promise<SQSBatchResponse> {
  const failures: string[] = [];
  const groups = new Map<string, { record: SQSRecord; message: EventsMessage }[]>();
  for (const record of records) {
    try {
      const message = parseEventsMessage(record.body);
      const key = message.object_id;
      groups.set(key, [...(groups.get(key) ?? []), { record, message }]);
    } catch (error) {
      logger.error('A malformed events message; SQS retries it, then dead-letters it', { message_id: record.messageId, error: (error as Error).message });
      failures.push(record.messageId);
    }
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      for (const [i, { message }] of group.entries()) {
        try {
          await handle(message);
        } catch (error) {
          logger.warn('An events message failed; it and the later ones of its object are retried', {
            event_id: message.event_id,
            error: (error as Error).message,
          });
          failures.push(...group.slice(i).map((g) => g.record.messageId));
          return;
        }
      }
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}
