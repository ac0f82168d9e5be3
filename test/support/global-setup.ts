/**
 * Vitest global setup: DynamoDB Local + local SQS start ONCE per run, with the table and queues created, and the
 * handlers' environment is handed to the test workers (`inject('localEnv')`, copied into process.env by env.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../infra/local/services.ts';
import { recordSqsSends } from './leak-capture.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** APP_ENV, TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB, queue URLs, … (see `localEnv` in infra/local/services.ts). */
    localEnv: Record<string, string>;
    /** A directory for this run alone, removed with it: what test files make once and share (test/infra/templates.ts). */
    suiteCache: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The vault's key file (a raw AES key per mode) is made for this run alone and removed with it.
  const keyDir = mkdtempSync(join(tmpdir(), 'payments-vault-'));
  const leakDir = mkdtempSync(join(tmpdir(), 'payments-leak-capture-'));
  const cacheDir = mkdtempSync(join(tmpdir(), 'payments-suite-cache-'));
  project.provide('suiteCache', cacheDir);
  const stack = await startLocalStack({
    tableName: 'payments-test',
    tableStream: false,
    vaultKeyFile: join(keyDir, 'vault-keys.json'),
    logLevel: 'WARN',
  });
  console.log(
    `[global-setup] DynamoDB Local ${stack.dynamo.endpoint} (pid ${stack.dynamo.pid}, up in ${stack.dynamo.startupMs} ms), SQS ${stack.sqs.endpoint}`,
  );
  project.provide('localEnv', stack.env);
  // For the leak scan: given to the root project, every project sees it, the card-scan project (vitest.config.ts) too.
  recordSqsSends(stack.sqs.server, leakDir);
  const { tableName, vaultTableName, cvcTableName } = stack;
  project.vitest
    .getRootProject()
    .provide('leakCapture', { dir: leakDir, dynamoEndpoint: stack.dynamo.endpoint, tableName, vaultTableName, cvcTableName });
  return async () => {
    await stack.stop();
    rmSync(keyDir, { recursive: true, force: true });
    rmSync(leakDir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  };
}
