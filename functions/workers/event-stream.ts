import type { DynamoDBStreamEvent } from 'aws-lambda';
import { publishStreamedEvents } from '../../shared/events/stream.ts';
import { worker } from '../../shared/worker.ts';

/** The table stream's consumer: every event a change committed goes to the events queue, in the stream's order. */
export const handler = worker(async (event: DynamoDBStreamEvent) => publishStreamedEvents(event.Records));
