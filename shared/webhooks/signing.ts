import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The Standard Webhooks headers for one delivery; `webhook-id` is the event id, stable across retries. */
export function signatureHeaders(secret: string, eventId: string, payload: string, at = new Date()): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, payload),
  };
}
