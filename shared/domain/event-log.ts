import type * as v from 'valibot';
import type { RedeliverEventBody } from '../schemas/webhooks.ts';
import { eventsQueue, type EventsMessage } from '../events/queue.ts';
import * as eventsStore from '../store/events.ts';
import type { EventRecord } from '../store/events.ts';
import * as webhooks from '../store/webhooks.ts';
import type { WebhookRecord } from '../store/webhooks.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { clock } from '../model/clock.ts';
import { BadRequest, InvalidState, NotFound } from '../model/errors.ts';
import { listedEvent } from './webhooks.ts';
import { subscribed } from './webhook-subscriptions.ts';

const modeName = (merchant: Merchant) => (merchant.livemode ? 'live' : 'test');

async function ownEvent(merchant: Merchant, eventId: string): Promise<EventRecord> {
  const event = await eventsStore.findEvent(ownerOf(merchant), eventId);
  if (!event) throw new NotFound(`no event ${eventId} in ${modeName(merchant)} mode`);
  return event;
}

/** One event as listed, with the payload its endpoints receive (`data`) and how each endpoint's delivery went. */
export async function getEvent(merchant: Merchant, eventId: string) {
  const event = await ownEvent(merchant, eventId);
  return {
    ...listedEvent(event),
    data: event.data,
    deliveries: Object.entries(event.endpoints ?? {}).map(([webhook_id, d]) => ({ webhook_id, ...d })),
  };
}

/**
 * Sends the event again (same `webhook-id`, signed anew) to the endpoint named, or to every active endpoint subscribed
 * to its type, through the events queue: each is delivered and, when it fails, retried like any delivery. Answers the
 * endpoints queued. A named endpoint may be one configured after the event; a disabled one is refused.
 */
export async function redeliverEvent(merchant: Merchant, eventId: string, input: v.InferOutput<typeof RedeliverEventBody>) {
  const event = await ownEvent(merchant, eventId);
  const endpoints = await webhooks.listWebhooks(ownerOf(merchant));
  const targets = input.webhook_id ? [namedEndpoint(merchant, endpoints, input.webhook_id)] : endpoints.filter((w) => subscribed(w, event.type));
  if (targets.length === 0) throw new BadRequest('no_webhook_endpoint', 'webhook_id', `no active webhook endpoint takes ${event.type} events`);
  const now = clock.now();
  const ref = eventsStore.refOf(event);
  const messages: EventsMessage[] = targets.map((w) => ({ kind: 'retry', ...ref, webhook_id: w.id, attempt: 1, first_attempt_at: now, due_at: now }));
  await eventsQueue.send(messages);
  return { object: 'event_redelivery' as const, event_id: event.id, livemode: event.livemode, webhook_ids: targets.map((w) => w.id) };
}

function namedEndpoint(merchant: Merchant, endpoints: readonly WebhookRecord[], webhookId: string): WebhookRecord {
  const named = endpoints.find((w) => w.id === webhookId);
  if (!named) throw new BadRequest('resource_missing', 'webhook_id', `no webhook endpoint ${webhookId} in ${modeName(merchant)} mode`);
  if (named.status !== 'active') throw new InvalidState('webhook_id', `webhook endpoint ${webhookId} is disabled`);
  return named;
}
