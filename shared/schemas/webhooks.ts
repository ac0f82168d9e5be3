import * as v from 'valibot';
import { EVENT_TYPES } from '../domain/events.ts';
import { idPattern } from '../domain/ids.ts';
import { listQuery } from './common.ts';

const EventName = v.picklist(EVENT_TYPES);

export const ConfigureWebhookBody = v.object({
  url: v.pipe(v.string(), v.minLength(1), v.maxLength(2048), v.examples(['https://shop.example.com/hooks'])),
  events: v.pipe(
    v.array(v.union([EventName, v.literal('*')], `one of: ${EVENT_TYPES.join(', ')}, or *`)),
    v.minLength(1),
    v.maxLength(EVENT_TYPES.length + 1),
    v.examples([['payment.succeeded', 'payment.failed']]),
  ),
});

export const TestWebhookBody = v.object({
  event: EventName,
  webhook_id: v.optional(v.pipe(v.string(), v.regex(idPattern('webhook'), 'a webhook id'))),
});

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
