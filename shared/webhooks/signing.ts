import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers for one delivery; `webhook-id` is the event id, stable across retries. */
export function signatureHeaders(secret: string, eventId: string, payload: string, at = new Date()): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, payload),
  };
}
