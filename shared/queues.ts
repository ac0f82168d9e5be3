/**
 * The service’s queues: `events` (table stream → webhook delivery), `renewals` (scanner → renewal worker), `clocks` (a
 * test clock's advance → the worker that runs it), `reconciliations` (the daily job → one run per connector account)
 * and `removals` (table stream → the worker removing a deleted payment method's tokens at its connector accounts).
 */
export type QueueName = 'events' | 'renewals' | 'clocks' | 'reconciliations' | 'removals';

/**
 * Queue definitions shared by CDK and the local runtime. Each queue has a dead-letter queue named `<name>-dlq`.
 * The URL reaches functions through the environment variable `envVar`.
 */
export interface QueueDefinition {
  name: QueueName;
  envVar: string;
  /** names the dead-letter queue's URL for the queue's consumer, which sends there what it gives up on */
  dlqEnvVar: string;
  /** seconds; at least 6× the consumer's timeout */
  visibilityTimeout: number;
  maxReceiveCount: number;
  /** the consumer sends to the dead-letter queue itself (besides SQS moving messages there after maxReceiveCount) */
  consumerDeadLetters: boolean;
}

export const queueDefinitions: readonly QueueDefinition[] = [
  { name: 'events', envVar: 'EVENTS_QUEUE_URL', dlqEnvVar: 'EVENTS_DLQ_URL', visibilityTimeout: 180, maxReceiveCount: 5, consumerDeadLetters: true },
  {
    name: 'renewals',
    envVar: 'RENEWALS_QUEUE_URL',
    dlqEnvVar: 'RENEWALS_DLQ_URL',
    visibilityTimeout: 180,
    maxReceiveCount: 5,
    consumerDeadLetters: false,
  },
  // a run reads one account's payouts, up to 5 minutes
  {
    name: 'reconciliations',
    envVar: 'RECONCILIATIONS_QUEUE_URL',
    dlqEnvVar: 'RECONCILIATIONS_DLQ_URL',
    visibilityTimeout: 1800,
    maxReceiveCount: 5,
    consumerDeadLetters: false,
  },
  // a removal calls each connector account that holds a token, up to a minute; a failed call comes back after 6
  {
    name: 'removals',
    envVar: 'REMOVALS_QUEUE_URL',
    dlqEnvVar: 'REMOVALS_DLQ_URL',
    visibilityTimeout: 360,
    maxReceiveCount: 5,
    consumerDeadLetters: false,
  },
  // an advance runs up to 5 minutes, and resumes where it got to when run again
  {
    name: 'clocks',
    envVar: 'CLOCKS_QUEUE_URL',
    dlqEnvVar: 'CLOCKS_DLQ_URL',
    visibilityTimeout: 1800,
    maxReceiveCount: 5,
    consumerDeadLetters: false,
  },
];
