import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { reconcileQueued } from '../../shared/domain/reconciliation.ts';
import { worker } from '../../shared/worker.ts';

const processor = new BatchProcessor(EventType.SQS);

/**
 * The reconciliations queue's consumer: one connector account's run per message (idempotent per payout). A failed
 * run fails its record: SQS retries it, then moves it to the dead-letter queue.
 */
export const handler = worker(async (event: SQSEvent) =>
  processPartialResponse(event, async (record: SQSRecord) => reconcileQueued(record.body), processor, { throwOnFullBatchFailure: false }),
);
