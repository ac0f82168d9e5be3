import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks headers for one delivery; `webhook-id` is the event id, stable across retries. One `v1,`
 * signature per secret, space-separated (the spec allows several): after a rotation, the new secret's and the old's.
 */
export function signatureHeaders(secrets: readonly string[], eventId: string, payload: string, at = new Date()): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(' '),
  };
}
