import { randomBytes } from 'node:crypto';
import { sealer } from '../sealing.ts';

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Webhook signing secrets, sealed to the endpoint they sign for (shared/sealing.ts). */
const webhookSecrets = sealer('webhook-signing-secret/v1', 'webhooks');

export const sealSecret = (secret: string, merchantId: string, webhookId: string): Promise<string> =>
  webhookSecrets.seal(secret, merchantId, webhookId);

export const openSecret = (sealed: string, merchantId: string, webhookId: string): Promise<string> =>
  webhookSecrets.open(sealed, merchantId, webhookId);
