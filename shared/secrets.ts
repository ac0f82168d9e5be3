import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { config } from './config.ts';
import { onFirstUse } from './first-use.ts';
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
    if (typeof value !== 'string' || value === '') throw new Error('App secret is empty');
    return value;
  };
}

/**
 * The HMAC key for OTPs, fingerprints, signed links and sealing: the env value locally; in AWS, Secrets Manager read
 * at most every APP_SECRET_MAX_AGE_SECONDS, so every container follows a changed value within that time.
 */
export const appSecret: () => Promise<string> = config.APP_SECRET
  ? () => Promise.resolve(config.APP_SECRET!)
  : secretReader(config.APP_SECRET_ARN!, config.APP_SECRET_MAX_AGE_SECONDS);
