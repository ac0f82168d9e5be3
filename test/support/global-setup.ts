/**
 * Vitest global setup: DynamoDB Local + local SQS start ONCE per run, with the table and queues created, and the
 * handlers' environment is handed to the test workers (`inject('localEnv')`, copied into process.env by env.ts).
 */
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../infra/local/services.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** APP_ENV, TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB, queue URLs, … (see `localEnv` in infra/local/services.ts). */
    localEnv: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await startLocalStack({ tableName: 'payments-test', logLevel: 'WARN' });
  console.log(
    `[global-setup] DynamoDB Local ${stack.dynamo.endpoint} (pid ${stack.dynamo.pid}, up in ${stack.dynamo.startupMs} ms), SQS ${stack.sqs.endpoint}`,
  );
  project.provide('localEnv', stack.env);
  return async () => {
    await stack.stop();
  };
}
