import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';
import type { DomainEvent } from '../domain/events.ts';
import { logger } from '../logger.ts';

/** What travels on the `events` queue: a new event to fan out, or one endpoint's retry. */
export type EventsMessage =
  | { kind: 'event'; event_id: string }
  | { kind: 'retry'; event_id: string; webhook_id: string; attempt: number; first_attempt_at: number; due_at: number };

const sqs = new SQSClient({});
/** SQS caps a message delay at 15 minutes; longer waits are walked in hops. */
export const MAX_DELAY_SECONDS = 900;

function queueUrl(): string {
  if (!config.EVENTS_QUEUE_URL) throw new Error('EVENTS_QUEUE_URL is not configured');
  return config.EVENTS_QUEUE_URL;
}

/** The send to the events queue. A seam for fault injection in tests: a change's event must survive its loss. */
export const eventsQueue = {
  async send(messages: EventsMessage[], delaySeconds = 0): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      const batch = messages.slice(i, i + 10);
      const out = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl(),
          Entries: batch.map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m), DelaySeconds: Math.min(delaySeconds, MAX_DELAY_SECONDS) })),
        }),
      );
      if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} message(s)`);
    }
  },
  async deadLetter(message: EventsMessage, reason: string): Promise<void> {
    if (!config.EVENTS_DLQ_URL) throw new Error('EVENTS_DLQ_URL is not configured');
    await sqs.send(new SendMessageCommand({ QueueUrl: config.EVENTS_DLQ_URL, MessageBody: JSON.stringify({ ...message, reason }) }));
  },
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
