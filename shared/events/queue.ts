import * as v from 'valibot';
import { config } from '../config.ts';
import type { DomainEvent } from '../domain/events.ts';
import { logger } from '../logger.ts';
import { sendJson, sendOneJson } from '../queues-client.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** What travels on the `events` queue: a new event to fan out, or one endpoint's retry. */
const EventsMessageSchema = v.variant('kind', [
  v.object({ kind: v.literal('event'), event_id: v.pipe(v.string(), v.startsWith('evt_')) }),
  v.object({
    kind: v.literal('retry'),
    event_id: v.pipe(v.string(), v.startsWith('evt_')),
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
 * Hands committed events to the delivery worker. Never fails the request that made the change: the events are
 * already in the table (outbox), and the sweeper resends any whose send was lost.
 */
export async function publishEvents(events: readonly DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  try {
    await eventsQueue.send(events.map((e) => ({ kind: 'event', event_id: e.id })));
  } catch (error) {
    logger.warn('Event send failed; the outbox sweeper will resend', { event_ids: events.map((e) => e.id), error: (error as Error).message });
  }
}
