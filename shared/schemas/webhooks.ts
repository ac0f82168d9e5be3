import * as v from 'valibot';
import { EVENT_TYPES } from '../model/events.ts';
import { idPattern } from '../model/ids.ts';
import { listQuery, Metadata } from './common.ts';

const EventName = v.picklist(EVENT_TYPES);

const Url = v.pipe(v.string(), v.minLength(1), v.maxLength(2048), v.examples(['https://shop.example.com/hooks']));
/** a picklist (not a union with `*`), so a wrong name is answered with the names allowed, in words */
const Events = v.pipe(
  v.array(v.picklist([...EVENT_TYPES, '*'], `one of: ${EVENT_TYPES.join(', ')}, or *`)),
  v.minLength(1),
  v.maxLength(EVENT_TYPES.length + 1),
  v.examples([['payment.succeeded', 'payment.failed']]),
);

export const ConfigureWebhookBody = v.object({ url: Url, events: Events, metadata: v.optional(Metadata) });

/** `PUT /api/webhooks/:id`: every field optional; a `url` is checked like on configure. */
export const UpdateWebhookBody = v.object({
  url: v.optional(Url),
  events: v.optional(Events),
  status: v.optional(v.picklist(['active', 'disabled'])),
  /** replaces the metadata as a whole */
  metadata: v.optional(Metadata),
});

const WebhookId = v.pipe(v.string(), v.regex(idPattern('webhook'), 'a webhook id'));

export const TestWebhookBody = v.object({ event: EventName, webhook_id: v.optional(WebhookId) });

/** `POST /api/events/:id/redeliver`: to this endpoint, or (absent) to every active endpoint subscribed to the event. */
export const RedeliverEventBody = v.object({ webhook_id: v.optional(WebhookId) });

/** `GET /api/webhooks`: pagination only. */
export const ListWebhooksQuery = listQuery('webhook');

export const ListWebhookEventsQuery = listQuery('event', {
  event: v.optional(EventName),
  delivered: v.optional(
    v.pipe(
      v.picklist(['true', 'false']),
      v.transform((s) => s === 'true'),
    ),
  ),
});
