/** Webhook endpoints, the delivery log and test deliveries as the API returns them (shared/domain/webhooks.ts). */
import * as v from 'valibot';
import { EVENT_TYPES } from '../../model/events.ts';
import { Count, Id, list, Livemode, Metadata, Timestamp } from './common.ts';

const webhookEntries = {
  id: Id('webhook'),
  object: v.literal('webhook'),
  livemode: Livemode,
  url: v.pipe(v.string(), v.url(), v.examples(['https://shop.example.com/hooks'])),
  events: v.array(v.union([v.picklist(EVENT_TYPES), v.literal('*')])),
  status: v.picklist(['active', 'disabled']),
  created_at: Timestamp,
  metadata: Metadata,
};

export const Webhook = v.object(webhookEntries);

/** A new endpoint: the signing `secret` is in this answer only. */
export const NewWebhook = v.object({
  ...webhookEntries,
  secret: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
      v.description('The signing secret, in this answer only: an idempotent replay of the configure omits it.'),
      v.examples(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4eLcbQ9qB1c=']),
    ),
  ),
});

/** An endpoint whose secret was rotated: the new `secret` is in this answer only. */
export const RotatedWebhook = v.object({
  ...webhookEntries,
  secret: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
      v.description('The new signing secret, in this answer only: an idempotent replay of the rotation omits it.'),
      v.examples(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4eLcbQ9qB1c=']),
    ),
  ),
  previous_secret_expires_at: v.pipe(Timestamp, v.description('until then the secret before this rotation keeps signing beside the new one')),
});

export const WebhookList = list(Webhook);

export const DeletedWebhook = v.object({ id: Id('webhook'), object: v.literal('webhook'), deleted: v.literal(true) });

export const WebhookEvent = v.object({
  id: Id('event'),
  object: v.literal('webhook_event'),
  livemode: Livemode,
  event: v.picklist(EVENT_TYPES),
  delivered: v.pipe(v.boolean(), v.description('every targeted endpoint answered 2xx')),
  attempts: Count,
  last_status_code: v.nullable(v.pipe(v.number(), v.integer(), v.examples([200]))),
  created_at: Timestamp,
});

export const WebhookEventList = list(WebhookEvent);

/** One event: as listed, with the payload its endpoints receive and each endpoint's delivery. */
export const WebhookEventDetail = v.object({
  ...WebhookEvent.entries,
  data: v.object({
    object: v.pipe(
      v.record(v.string(), v.unknown()),
      v.description('the object the event reports, as it was then, with its `sequence`'),
      v.examples([{ id: 'pay_01jq7k3v9qf2m7x4b6n5c0t1wz', object: 'payment', status: 'succeeded', sequence: 1795302000000000 }]),
    ),
  }),
  deliveries: v.array(
    v.object({
      webhook_id: Id('webhook'),
      delivered: v.boolean(),
      attempts: Count,
      last_status_code: v.nullable(v.pipe(v.number(), v.integer(), v.description('0 when the endpoint could not be reached'), v.examples([200]))),
    }),
  ),
});

/** The endpoints an event was queued to again. */
export const EventRedelivery = v.object({
  object: v.literal('event_redelivery'),
  event_id: Id('event'),
  livemode: Livemode,
  webhook_ids: v.pipe(v.array(Id('webhook')), v.description('each is delivered shortly, and retried like any delivery when it fails')),
});

export const WebhookTestResult = v.object({
  object: v.literal('webhook_test'),
  webhook_id: Id('webhook'),
  delivered: v.boolean(),
  status_code: v.pipe(v.number(), v.integer(), v.description('0 when the endpoint could not be reached'), v.examples([200])),
  latency_ms: Count,
});
