import { sealer } from '../sealing.ts';

/** Webhook signing secrets, sealed to the endpoint they sign for (shared/sealing.ts). */
const webhookSecrets = sealer('webhook-signing-secret/v1');

export const sealSecret = (secret: string, merchantId: string, webhookId: string): Promise<string> =>
  webhookSecrets.seal(secret, merchantId, webhookId);

export const openSecret = (sealed: string, merchantId: string, webhookId: string): Promise<string> =>
  webhookSecrets.open(sealed, merchantId, webhookId);
