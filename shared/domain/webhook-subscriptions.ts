import type { EventType } from '../model/events.ts';
import type { WebhookRecord } from '../store/webhooks.ts';

/**
 * An active endpoint that takes events of this type. Its own module: the delivery worker, the event log and the test
 * send all ask it, and the delivery code is loaded only where it delivers (webhooks.ts imports it on demand).
 */
export const subscribed = (webhook: WebhookRecord, type: EventType) =>
  webhook.status === 'active' && (webhook.events.includes('*') || webhook.events.includes(type));
