import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '../../functions/catalog.ts';
import { type QueueDefinition, queueDefinitions } from '../../shared/queues.ts';

export interface AppQueue {
  definition: QueueDefinition;
  queue: Queue;
  deadLetterQueue: Queue;
}

/**
 * One queue per definition in `shared/queues.ts` (the local runtime reads the same list), each with its dead-letter
 * queue `<name>-dlq`: SQS-managed encryption, TLS-only access, redrive after `maxReceiveCount` receives.
 * Physical names are left to CloudFormation; functions find a queue through its `envVar`.
 */
export class AppQueues extends Construct {
  readonly all: readonly AppQueue[];

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.all = queueDefinitions.map((definition) => {
      const deadLetterQueue = new Queue(this, `${definition.name}-dlq`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      const queue = new Queue(this, definition.name, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(definition.visibilityTimeout),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      });
      return { definition, queue, deadLetterQueue };
    });
  }

  get(name: QueueName): AppQueue {
    const found = this.all.find((q) => q.definition.name === name);
    if (!found) throw new Error(`No queue definition named "${name}" in shared/queues.ts`);
    return found;
  }
}
