import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { type DomainEvent, EVENT_TYPES } from '../model/events.ts';
import { conditionalWrite, db, TABLE, ttl } from './client.ts';
import { Int, nullable, recordReader, Text } from './item-schemas.ts';
import { eventKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { listPageAcross, type Page, type PageQuery, shardedList } from './pagination.ts';

const KEEP_MS = 30 * 24 * 60 * 60 * 1000;

export interface EndpointDelivery {
  delivered: boolean;
  attempts: number;
  last_status_code: number | null;
}

/** An event and its delivery state: `pending` endpoints of `targeted` still wait for a 2xx. */
export interface EventRecord extends DomainEvent {
  targeted?: number;
  pending?: number;
  attempts: number;
  last_status_code: number | null;
  endpoints?: Record<string, EndpointDelivery>;
}

/** Where an event is stored: its id and the object it reports. */
export interface EventRef {
  event_id: string;
  object_id: string;
}

const objectIdOf = (event: DomainEvent): string => (typeof event.data.object.id === 'string' ? event.data.object.id : event.id);
/** Where the event is stored, as a queue message names it. */
export const refOf = (event: DomainEvent): EventRef => ({ event_id: event.id, object_id: objectIdOf(event) });
const keyOf = (ref: EventRef) => eventKeys.item(ref.event_id, ref.object_id);

/**
 * The Put that records an event, in the same transaction as the change it reports: committed together, and the
 * table's stream hands it to the events queue (shared/events/stream.ts).
 */
export function eventPut(event: DomainEvent) {
  const { data, id, type, ...fields } = event;
  return {
    Put: {
      TableName: TABLE,
      Item: {
        ...eventKeys.item(id, objectIdOf(event)),
        ...eventKeys.list(event, id),
        ...fields,
        data: deflateRawSync(JSON.stringify(data)),
        type: 'event',
        event_type: type,
        expires_at: ttl(Date.parse(event.created_at) + KEEP_MS),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * The event as the table holds it, checked when read back (see item-schemas.ts): its id is its sort key's, its type
 * is kept in `event_type` (`type` is the item's kind, `event`, like every item's); the delivery fields appear with the
 * first round. Nothing repeated: a payment's event, written in its change's transaction, stays within one write unit.
 */
const EndpointDeliveryItem = v.object({ delivered: v.boolean(), attempts: Int, last_status_code: nullable(Int) });
const EventItem = v.pipe(
  v.object({
    sk: v.pipe(Text, v.startsWith('EVT#')),
    event_type: v.picklist(EVENT_TYPES),
    merchant_id: Text,
    livemode: v.boolean(),
    created_at: Text,
    data: v.object({ object: v.record(v.string(), v.unknown()) }),
    targeted: v.optional(Int),
    pending: v.optional(Int),
    attempts: v.optional(Int, 0),
    last_status_code: v.optional(nullable(Int), null),
    endpoints: v.optional(v.record(v.string(), EndpointDeliveryItem)),
  }),
  v.transform(({ sk, event_type, ...event }) => ({ id: sk.slice('EVT#'.length), ...event, type: event_type })),
);
const readEventItem: (item: Record<string, unknown>) => EventRecord = recordReader('event', EventItem);

/**
 * `data` is stored deflated (about half its JSON) so an event item, written in a change's transaction and indexed
 * for the merchant's list, fits one write unit. A stream image carries the bytes base64-encoded. Bytes that do not
 * inflate (or no bytes) leave `data` absent, and the item is refused as unreadable.
 */
function inflated({ data, ...item }: Record<string, unknown>): Record<string, unknown> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : data;
  if (!(bytes instanceof Uint8Array)) return item;
  try {
    return { ...item, data: JSON.parse(inflateRawSync(bytes).toString('utf8')) as unknown };
  } catch {
    return item; // refused by the schema, for want of `data`
  }
}
const fromItem = (item: Record<string, unknown>): EventRecord => readEventItem(inflated(item));

export async function getEvent(ref: EventRef): Promise<EventRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: keyOf(ref), ConsistentRead: true }));
  return out.Item ? fromItem(out.Item) : undefined;
}

/**
 * The owner's event by its id alone (the API's `evt_…`): found on the owner's list (gsi1, which holds merchant and
 * mode), then read consistently, so its delivery state is current. Undefined for another owner's or an unknown id.
 */
export async function findEvent(owner: Owner, eventId: string): Promise<EventRecord | undefined> {
  const { gsi1pk, gsi1sk } = eventKeys.list(owner, eventId);
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':sk': gsi1sk },
      Limit: 1,
    }),
  );
  const listed = out.Items?.[0];
  return listed && getEvent(refOf(fromItem(listed)));
}

/** The event a record of the table's stream adds, if the record is a new event item; undefined for anything else. */
export function addedEvent(image: Record<string, unknown>): (EventRef & Owner & { type: DomainEvent['type'] }) | undefined {
  if (image.type !== 'event') return undefined;
  const event = fromItem(image);
  return { event_id: event.id, object_id: objectIdOf(event), merchant_id: event.merchant_id, livemode: event.livemode, type: event.type };
}

/** Records the first delivery round (once): which endpoints were targeted and how each attempt went. */
export async function recordFanOut(ref: EventRef, endpoints: Record<string, EndpointDelivery>): Promise<boolean> {
  const results = Object.values(endpoints);
  const lastCode = results.at(-1)?.last_status_code ?? null;
  return conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: keyOf(ref),
      UpdateExpression: 'SET targeted = :n, pending = :pending, endpoints = :endpoints, attempts = :attempts, last_status_code = :code',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(targeted)',
      ExpressionAttributeValues: {
        ':n': results.length,
        ':pending': results.filter((r) => !r.delivered).length,
        ':endpoints': endpoints,
        ':attempts': results.length,
        ':code': lastCode,
      },
    }),
  );
}

/**
 * Counts one retry (or a redelivery the merchant asked for) to one endpoint; a first 2xx lowers `pending`. An
 * endpoint outside the first round (a redelivery to an endpoint configured later) joins it: `targeted` grows. Before
 * the first round is recorded there is nothing to count in: its own round will.
 */
export async function recordRetry(ref: EventRef, webhookId: string, statusCode: number, delivered: boolean): Promise<void> {
  const update = (UpdateExpression: string, ConditionExpression: string, values: Record<string, unknown>) =>
    conditionalWrite(
      new UpdateCommand({
        TableName: TABLE,
        Key: keyOf(ref),
        UpdateExpression,
        ConditionExpression,
        ExpressionAttributeNames: { '#w': webhookId },
        ExpressionAttributeValues: { ':code': statusCode, ':one': 1, ...values },
      }),
    );
  const counted =
    'SET endpoints.#w.last_status_code = :code, endpoints.#w.attempts = endpoints.#w.attempts + :one, last_status_code = :code ADD attempts :one';
  const recorded = delivered
    ? // the first 2xx of this endpoint lowers `pending`; a later one only counts
      (await update(
        'SET endpoints.#w.delivered = :true, endpoints.#w.last_status_code = :code, endpoints.#w.attempts = endpoints.#w.attempts + :one, last_status_code = :code ADD attempts :one, pending :minus',
        'endpoints.#w.delivered = :false',
        { ':true': true, ':false': false, ':minus': -1 },
      )) || (await update(counted, 'endpoints.#w.delivered = :true', { ':true': true }))
    : await update(counted, 'attribute_exists(endpoints.#w)', {});
  if (recorded) return;
  // refused: no first round yet, or it was recorded meanwhile with this endpoint in it
  await update(
    'SET endpoints.#w = :entry, last_status_code = :code ADD targeted :one, attempts :one, pending :pending',
    'attribute_exists(targeted) AND attribute_not_exists(endpoints.#w)',
    { ':entry': { delivered, attempts: 1, last_status_code: statusCode }, ':pending': delivered ? 0 : 1 },
  );
}

export interface EventFilters {
  event?: string;
  delivered?: boolean;
}

export async function listEvents(owner: Owner, filters: EventFilters, page: PageQuery): Promise<Page<EventRecord>> {
  const clauses: string[] = [];
  const values: Record<string, unknown> = {};
  if (filters.event) {
    clauses.push('event_type = :type');
    values[':type'] = filters.event;
  }
  if (filters.delivered !== undefined) {
    values[':zero'] = 0;
    clauses.push(
      filters.delivered ? '(targeted > :zero AND pending = :zero)' : '(attribute_not_exists(targeted) OR targeted = :zero OR pending > :zero)',
    );
  }
  const filter = clauses.length ? { FilterExpression: clauses.join(' AND '), ExpressionAttributeValues: values } : undefined;
  const result = await listPageAcross(shardedList(eventKeys.listPartitions(owner), filter), page);
  return { data: result.data.map(fromItem), has_more: result.has_more };
}
