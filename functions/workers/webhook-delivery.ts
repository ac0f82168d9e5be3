import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { handleEventsMessage } from '../../shared/domain/webhook-delivery.ts';
import { parseEventsMessage } from '../../shared/events/queue.ts';
import { worker } from '../../shared/worker.ts';

const processor = new BatchProcessor(EventType.SQS);

/** The events queue's consumer: fans new events out to endpoints and runs retries; failed records are retried by SQS. */
export const handler = worker(async (event: SQSEvent) =>
  processPartialResponse(event, (record: SQSRecord) => handleEventsMessage(parseEventsMessage(record.body)), processor, {
    throwOnFullBatchFailure: false,
  }),
);
