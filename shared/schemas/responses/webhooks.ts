/** Webhook endpoints, the delivery log and test deliveries as the API returns them (shared/domain/webhooks.ts). */
import * as v from 'valibot';
import { EVENT_TYPES } from '../../domain/events.ts';
import { Count, Id, list, Livemode, Timestamp } from './common.ts';

const webhookEntries = {
  id: Id('webhook'),
  object: v.literal('webhook'),
  livemode: Livemode,
  url: v.pipe(v.string(), v.url(), v.examples(['https://shop.example.com/hooks'])),
  events: v.array(v.union([v.picklist(EVENT_TYPES), v.literal('*')])),
  status: v.picklist(['active', 'disabled']),
  created_at: Timestamp,
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

export const WebhookTestResult = v.object({
  object: v.literal('webhook_test'),
  webhook_id: Id('webhook'),
  delivered: v.boolean(),
  status_code: v.pipe(v.number(), v.integer(), v.description('0 when the endpoint could not be reached'), v.examples([200])),
  latency_ms: Count,
});
