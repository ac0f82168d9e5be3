import type { SQSEvent } from 'aws-lambda';
import { handleEventsMessage } from '../../shared/domain/webhook-delivery.ts';
import { handleInObjectOrder } from '../../shared/events/queue.ts';
import { worker } from '../../shared/worker.ts';

/** The events queue's consumer: fans new events out to endpoints and runs retries; failed records are retried by SQS. */
export const handler = worker(async (event: SQSEvent) => handleInObjectOrder(event.Records, handleEventsMessage));
