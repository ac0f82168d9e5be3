/**
 * Building blocks of the response schemas: what the API returns, written down so that it is checked against the
 * domain views at compile time (`http({ response })`) and documented (infra/openapi). Examples here become the
 * examples of the OpenAPI document.
 */
import * as v from 'valibot';
import { type Entity, exampleId, idPattern } from '../../model/ids.ts';

export const Id = (entity: Entity) => v.pipe(v.string(), v.regex(idPattern(entity)), v.examples([exampleId(entity)]));

/** ISO 8601 UTC with milliseconds and `Z`. */
export const Timestamp = v.pipe(v.string(), v.isoTimestamp(), v.examples(['2026-03-14T09:26:53.589Z']));

/** `YYYY-MM-DD` (UTC). */
export const CalendarDate = v.pipe(v.string(), v.isoDate(), v.examples(['2026-04-14']));

/** ISO 4217, uppercase. */
export const Currency = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/), v.examples(['EUR']));

/** Minor units. */
export const Amount = v.pipe(v.number(), v.integer(), v.minValue(0), v.examples([4999]));

export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const Metadata = v.pipe(v.record(v.string(), v.string()), v.examples([{ order_id: '1042' }]));

export const Email = v.pipe(v.string(), v.email(), v.examples(['jane@example.com']));

export const Phone = v.pipe(v.string(), v.regex(/^\+[1-9]\d{7,14}$/), v.examples(['+14155550123']));

/** A page of a list: newest first, `has_more` when another page follows. */
export const list = <T extends v.GenericSchema>(item: T) => v.object({ object: v.literal('list'), data: v.array(item), has_more: v.boolean() });

/** Every object belongs to one mode: test objects are never seen with a live credential, nor live ones with a test one. */
export const Livemode = v.pipe(v.boolean(), v.description('true for live-mode data, false for test-mode data'));
