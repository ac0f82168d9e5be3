import { ulid } from 'ulid';
import { clock } from './clock.ts';

/** Identifier prefixes of the contract. An id is `<prefix>_` + a lowercase 26-char ULID (time-sortable). */
export const PREFIXES = {
  payment: 'pay',
  refund: 'ref',
  subscription: 'sub',
  invoice: 'inv',
  rule: 'rul',
  customer: 'cus',
  settlement: 'set',
  webhook: 'whk',
  event: 'evt',
  apiKey: 'key',
  merchant: 'mer',
  otpRequest: 'req',
} as const;

export type Entity = keyof typeof PREFIXES;

/** Ids carry the creation time (the clock's), so a time range of a list is a key range. */
export const newId = (entity: Entity, time = clock.now()): string => `${PREFIXES[entity]}_${ulid(time).toLowerCase()}`;

const ULID_BODY = '[0-9abcdefghjkmnpqrstvwxyz]{26}';
const patterns = Object.fromEntries(
  Object.entries(PREFIXES).map(([entity, prefix]) => [entity, new RegExp(`^${prefix}_${ULID_BODY}$`)]),
) as Record<Entity, RegExp>;

/** The shape of an id of `entity`, e.g. `^pay_[0-9a-hjkmnp-tv-z]{26}$` (for documents and response checks). */
export const idPattern = (entity: Entity): RegExp => patterns[entity];

/** A well-formed id of `entity` for examples in documents, e.g. `pay_01jq7k3v9qf2m7x4b6n5c0t1wz`. */
export const exampleId = (entity: Entity): string => `${PREFIXES[entity]}_01jq7k3v9qf2m7x4b6n5c0t1wz`;

/** True when `id` has the prefix and shape of `entity`: a malformed id is answered like a missing one (404). */
export const isId = (entity: Entity, id: unknown): id is string => typeof id === 'string' && patterns[entity].test(id);
