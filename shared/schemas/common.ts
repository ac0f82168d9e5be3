import * as v from 'valibot';
import { type Entity, idPattern } from '../domain/ids.ts';

export const Email = v.pipe(v.string(), v.trim(), v.maxLength(254), v.email(), v.toLowerCase(), v.examples(['jane@example.com']));

/** E.164: `+` then 8–15 digits. */
export const Phone = v.pipe(v.string(), v.regex(/^\+[1-9]\d{7,14}$/), v.examples(['+14155550123']));

export const Name = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));

/** At most 50 keys, key ≤ 40 chars, string values ≤ 500 chars. */
export const Metadata = v.pipe(
  v.unknown(),
  v.check((m) => typeof m === 'object' && m !== null && !Array.isArray(m), 'metadata must be an object'),
  v.record(v.pipe(v.string(), v.minLength(1), v.maxLength(40)), v.pipe(v.string(), v.maxLength(500))),
  v.check((m) => Object.keys(m).length <= 50, 'at most 50 metadata keys'),
  v.examples([{ order_id: '1042' }]),
);

const Limit = v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(100));

const cursor = (entity: Entity) => v.optional(v.pipe(v.string(), v.regex(idPattern(entity), `the id of a ${entity}`)));

/** Pagination query entries: `limit` (1–100, default 10), `starting_after` / `ending_before` (ids of the entity). */
export const pageEntries = (entity: Entity) => ({
  limit: v.optional(Limit, '10'),
  starting_after: cursor(entity),
  ending_before: cursor(entity),
});

/** A list query: pagination plus the list's filters; the two cursors exclude each other. */
export const listQuery = <F extends v.ObjectEntries = Record<never, never>>(entity: Entity, filters: F = {} as F) =>
  v.pipe(
    v.object({ ...pageEntries(entity), ...filters }),
    v.check((q) => q.starting_after === undefined || q.ending_before === undefined, 'starting_after and ending_before exclude each other'),
  );
