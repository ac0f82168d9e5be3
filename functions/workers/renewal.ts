import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { parseRenewalMessage, renewPeriod } from '../../shared/domain/renewals.ts';
import { worker } from '../../shared/worker.ts';

const processor = new BatchProcessor(EventType.SQS);

/**
 * The renewals queue's consumer: renews one period per message, at most once (see shared/domain/renewals.ts).
 * A malformed message or an unexpected error fails its record: SQS retries it, then moves it to the dead-letter queue.
 */
export const handler = worker(async (event: SQSEvent) =>
  processPartialResponse(event, async (record: SQSRecord) => renewPeriod(parseRenewalMessage(record.body)), processor, {
    throwOnFullBatchFailure: false,
  }),
);
