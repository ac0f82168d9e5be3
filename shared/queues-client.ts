import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { tracer } from './tracer.ts';

/** One SQS client per container; the endpoint comes from AWS_ENDPOINT_URL_SQS locally. */
const sqs = tracer.captureAWSv3Client(new SQSClient({}));

/** Sends JSON messages in batches of ten; throws if SQS refuses any. */
export async function sendJson(queueUrl: string | undefined, name: string, messages: readonly unknown[], delaySeconds = 0): Promise<void> {
  if (!queueUrl) throw new Error(`The ${name} queue URL is not configured`);
  for (let i = 0; i < messages.length; i += 10) {
    const out = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.slice(i, i + 10).map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m), DelaySeconds: delaySeconds })),
      }),
    );
    if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} ${name} message(s)`);
  }
}

export async function sendOneJson(queueUrl: string | undefined, name: string, message: unknown): Promise<void> {
  if (!queueUrl) throw new Error(`The ${name} queue URL is not configured`);
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
}
