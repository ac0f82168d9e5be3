import { onFirstUse } from './first-use.ts';
import { traced } from './tracer.ts';

/** One SQS client per container, made on the first send; the endpoint comes from AWS_ENDPOINT_URL_SQS locally. */
const sqs = onFirstUse(async () => {
  const sdk = await import('@aws-sdk/client-sqs');
  return { sdk, client: traced(new sdk.SQSClient({})) };
});

/** Sends JSON messages in batches of ten; throws if SQS refuses any. */
export async function sendJson(queueUrl: string | undefined, name: string, messages: readonly unknown[], delaySeconds = 0): Promise<void> {
  if (!queueUrl) throw new Error(`The ${name} queue URL is not configured`);
  const { sdk, client } = await sqs();
  for (let i = 0; i < messages.length; i += 10) {
    const out = await client.send(
      new sdk.SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.slice(i, i + 10).map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m), DelaySeconds: delaySeconds })),
      }),
    );
    if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} ${name} message(s)`);
  }
}

export async function sendOneJson(queueUrl: string | undefined, name: string, message: unknown): Promise<void> {
  if (!queueUrl) throw new Error(`The ${name} queue URL is not configured`);
  const { sdk, client } = await sqs();
  await client.send(new sdk.SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
}
