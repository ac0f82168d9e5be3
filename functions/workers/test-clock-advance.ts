import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { parseTestClockMessage, runAdvance } from '../../shared/domain/test-clock-advance.ts';
import { worker } from '../../shared/worker.ts';

const processor = new BatchProcessor(EventType.SQS);

/**
 * The clocks queue's consumer: runs a test clock's advance (see shared/domain/test-clocks.ts). A run that fails or
 * times out leaves the message to come again, and the advance resumes from the last day it recorded.
 */
export const handler = worker(async (event: SQSEvent) =>
  processPartialResponse(event, async (record: SQSRecord) => runAdvance(parseTestClockMessage(record.body)), processor, {
    throwOnFullBatchFailure: false,
  }),
);
