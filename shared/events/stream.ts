import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { logger } from '../logger.ts';
import * as events from '../store/events.ts';
import { eventsQueue, type EventsMessage } from './queue.ts';
import { type RemovalMessage, removalsQueue } from './removals.ts';

/** SQS takes at most 10 messages per send. */
const SEND_SIZE = 10;

interface Streamed {
  sequence: string;
  message: EventsMessage;
  /** a deleted payment method's event also starts the removal of its tokens at connector accounts */
  removal?: RemovalMessage;
}

/**
 * The table's stream → the `events` queue: every event item a change wrote becomes one message, in the stream's
 * order (one object's events share a partition key, so they arrive in the order they were written); a
 * `payment_method.deleted` one also becomes a message of the `removals` queue. The request that made the change
 * sends nothing: the committed item is the event, and the stream hands it over.
 *
 * A failed send reports the first record of that send as the batch's failure: Lambda checkpoints every record before
 * it and retries from it (bisecting, then the on-failure destination; see infra), so nothing is skipped. Records
 * after it may be sent twice: the queue is at-least-once, and the delivery worker fans an event out once.
 */
export async function publishStreamedEvents(records: readonly DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  const streamed = records.flatMap(eventOf);
  for (let i = 0; i < streamed.length; i += SEND_SIZE) {
    const part = streamed.slice(i, i + SEND_SIZE);
    try {
      await eventsQueue.send(part.map((s) => s.message));
      const removals = part.flatMap((s) => (s.removal ? [s.removal] : []));
      if (removals.length) await removalsQueue.send(removals);
    } catch (error) {
      logger.warn('Event send from the table stream failed; the stream retries from this record', {
        event_ids: part.map((s) => s.message.event_id),
        error: (error as Error).message,
      });
      return { batchItemFailures: [{ itemIdentifier: part[0]!.sequence }] };
    }
  }
  return { batchItemFailures: [] };
}

/** The message for a record that adds an event item; none for any other change. */
function eventOf(record: DynamoDBRecord): Streamed[] {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || !image) return [];
  try {
    const added = events.addedEvent(unmarshall(image as Record<string, AttributeValue>));
    if (!added) return [];
    const { type, ...ref } = added;
    const removal =
      type === 'payment_method.deleted' ? { payment_method_id: ref.object_id, merchant_id: ref.merchant_id, livemode: ref.livemode } : undefined;
    return [{ sequence: record.dynamodb!.SequenceNumber!, message: { kind: 'event', ...ref }, ...(removal ? { removal } : {}) }];
  } catch (error) {
    // an event item the delivery worker could not read either: retrying cannot help, so it is reported, not retried
    logger.error('An event item on the table stream is unreadable; it is not delivered', {
      key: image.pk?.S,
      sort_key: image.sk?.S,
      error: (error as Error).message,
    });
    return [];
  }
}
