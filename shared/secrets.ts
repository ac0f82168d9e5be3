import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { config } from './config.ts';
import { onFirstUse } from './first-use.ts';
import { arnVariableOf, SECRETS, type SecretPurpose } from './secret-purposes.ts';
import { traced } from './tracer.ts';

/** Secrets Manager through Powertools Parameters, loaded by the first read: a function that never reads one never loads it. */
const secretsManager = onFirstUse(async () => {
  const [{ SecretsProvider }, { SecretsManagerClient }] = await Promise.all([
    import('@aws-lambda-powertools/parameters/secrets'),
    import('@aws-sdk/client-secrets-manager'),
  ]);
  return new SecretsProvider({ awsSdkV3Client: traced(new SecretsManagerClient({})) });
});

/** Reads a Secrets Manager secret, keeping it `maxAgeSeconds` before reading it again. */
export function secretReader(arn: string, maxAgeSeconds: number, provider: () => Promise<SecretsProvider> = secretsManager): () => Promise<string> {
  return async () => {
    const value = await (await provider()).get(arn, { maxAge: maxAgeSeconds });
    if (typeof value !== 'string' || value === '') throw new Error('Secret is empty');
    return value;
  };
}

const readers = new Map<SecretPurpose, () => Promise<string>>();

/**
 * The secret of one purpose (shared/secret-purposes.ts): the env value locally; in AWS, Secrets Manager read at most
 * every SECRET_MAX_AGE_SECONDS, so every container follows a changed value within that time. A function reads only the
 * purposes its catalog entry names: for any other it has neither variable (nor, in AWS, the grant), and this throws.
 */
export function readSecret(purpose: SecretPurpose): Promise<string> {
  const { variable } = SECRETS[purpose];
  const value = config[variable];
  if (value) return Promise.resolve(value);
  let reader = readers.get(purpose);
  if (!reader) {
    const arn = config[arnVariableOf(purpose)];
    if (!arn) return Promise.reject(new Error(`This function may not use the ${purpose} secret (no ${variable} or ${arnVariableOf(purpose)})`));
    reader = secretReader(arn, config.SECRET_MAX_AGE_SECONDS);
    readers.set(purpose, reader);
  }
  return reader();
}
