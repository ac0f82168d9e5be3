import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { removeDeletedPaymentMethod } from '../../shared/domain/payment-method-removal.ts';
import { parseRemovalMessage } from '../../shared/events/removals.ts';
import { worker } from '../../shared/worker.ts';

const processor = new BatchProcessor(EventType.SQS);

/**
 * The removals queue's consumer: a deleted payment method's tokens removed at its connector accounts. A failed removal
 * fails its record: SQS retries it, then moves it to the dead-letter queue.
 */
export const handler = worker(async (event: SQSEvent) =>
  processPartialResponse(event, async (record: SQSRecord) => removeDeletedPaymentMethod(parseRemovalMessage(record.body)), processor, {
    throwOnFullBatchFailure: false,
  }),
);
