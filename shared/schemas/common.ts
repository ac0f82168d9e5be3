import * as v from 'valibot';
import { type Entity, ENTITY_NAMES, idPattern } from '../model/ids.ts';

export const Email = v.pipe(v.string(), v.trim(), v.maxLength(254), v.email(), v.toLowerCase(), v.examples(['jane@example.com']));

/** E.164: `+` then 8–15 digits. */
export const Phone = v.pipe(v.string(), v.regex(/^\+[1-9]\d{7,14}$/, 'E.164: + then 8 to 15 digits'), v.examples(['+14155550123']));

export const Name = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));

const isMetadataKey = (key: string) => key.length >= 1 && key.length <= 40 && key !== '__proto__';
const isMetadataValue = (value: unknown) => typeof value === 'string' && value.length <= 500;

/**
 * At most 50 keys, key ≤ 40 chars, string values ≤ 500 chars. Checked entry by entry rather than with `v.record`,
 * which silently drops keys such as `constructor` and `prototype`; only `__proto__` is refused. The JSON Schema
 * the document shows is stated in `v.metadata`, since a custom check cannot be converted.
 */
export const Metadata = v.pipe(
  v.custom<Record<string, string>>((m) => typeof m === 'object' && m !== null && !Array.isArray(m), 'an object of string values'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    for (const [key, value] of Object.entries(input)) {
      if (isMetadataKey(key) && isMetadataValue(value)) continue;
      addIssue({
        message: isMetadataKey(key) ? 'a string of at most 500 characters' : 'a key of 1 to 40 characters (not __proto__)',
        path: [{ type: 'object', origin: isMetadataKey(key) ? 'value' : 'key', input, key, value }],
      });
      return;
    }
  }),
  v.check((m) => Object.keys(m).length <= 50, 'an object of at most 50 keys'),
  v.metadata({
    type: 'object',
    maxProperties: 50,
    propertyNames: { minLength: 1, maxLength: 40 },
    additionalProperties: { type: 'string', maxLength: 500 },
  }),
  v.examples([{ order_id: '1042' }]),
);

const Limit = v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'an integer from 1 to 100'), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(100));

const cursor = (entity: Entity) => v.optional(v.pipe(v.string(), v.regex(idPattern(entity), `the id of a ${ENTITY_NAMES[entity]}`)));

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
