import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from './config.ts';

let secret: Promise<string> | undefined;

/** The HMAC key for OTPs and fingerprints: the env value locally, Secrets Manager (read once per container) in AWS. */
export function appSecret(): Promise<string> {
  secret ??= config.APP_SECRET ? Promise.resolve(config.APP_SECRET) : fetchSecret(config.APP_SECRET_ARN!);
  return secret;
}

async function fetchSecret(arn: string): Promise<string> {
  const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
  if (!out.SecretString) throw new Error('App secret is empty');
  return out.SecretString;
}
