import { config } from '../config.ts';
import type { DomainEvent } from '../domain/events.ts';
import { logger } from '../logger.ts';
import { sendJson, sendOneJson } from '../queues-client.ts';

/** What travels on the `events` queue: a new event to fan out, or one endpoint's retry. */
export type EventsMessage =
  | { kind: 'event'; event_id: string }
  | { kind: 'retry'; event_id: string; webhook_id: string; attempt: number; first_attempt_at: number; due_at: number };

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
