import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { config } from './config.ts';
import { tracer } from './tracer.ts';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** Reads a Secrets Manager secret through Powertools Parameters, keeping it `maxAgeSeconds` before reading it again. */
export function secretReader(
  arn: string,
  maxAgeSeconds: number,
  provider = new SecretsProvider({ awsSdkV3Client: tracer.captureAWSv3Client(new SecretsManagerClient({})) }),
): () => Promise<string> {
  return async () => {
    const value = await provider.get(arn, { maxAge: maxAgeSeconds });
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
