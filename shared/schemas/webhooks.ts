import * as v from 'valibot';
import { EVENT_TYPES } from '../domain/events.ts';
import { isId } from '../domain/ids.ts';
import { listQuery } from './common.ts';

const EventName = v.picklist(EVENT_TYPES);

export const ConfigureWebhookBody = v.object({
  url: v.pipe(v.string(), v.minLength(1), v.maxLength(2048)),
  events: v.pipe(v.array(v.union([EventName, v.literal('*')])), v.minLength(1), v.maxLength(EVENT_TYPES.length + 1)),
});

export const TestWebhookBody = v.object({
  event: EventName,
  webhook_id: v.optional(v.pipe(v.string(), v.check((id) => isId('webhook', id)))),
});

export const ListWebhookEventsQuery = listQuery('event', {
  event: v.optional(EventName),
  delivered: v.optional(v.pipe(v.picklist(['true', 'false']), v.transform((s) => s === 'true'))),
});
