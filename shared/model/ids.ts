import { createHash } from 'node:crypto';
import { encodeTime, ulid } from 'ulid';
import { businessNow, clock } from './clock.ts';

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
  operation: 'op',
  attempt: 'att',
  connector: 'con',
  dispute: 'dis',
  testClock: 'clk',
  paymentMethod: 'pm',
  reconciliationException: 'rex',
  user: 'usr',
  invitation: 'ivt',
  auditEntry: 'aud',
  paymentLink: 'plink',
} as const;

export type Entity = keyof typeof PREFIXES;

/** What each entity is called in messages: `no routing rule rul_… in test mode`, `the id of a routing rule`. */
export const ENTITY_NAMES: Record<Entity, string> = {
  payment: 'payment',
  refund: 'refund',
  subscription: 'subscription',
  invoice: 'invoice',
  rule: 'routing rule',
  customer: 'customer',
  settlement: 'settlement',
  webhook: 'webhook endpoint',
  event: 'event',
  apiKey: 'API key',
  merchant: 'merchant',
  otpRequest: 'sign-in code request',
  operation: 'operation',
  attempt: 'attempt',
  connector: 'connector',
  dispute: 'dispute',
  paymentMethod: 'payment method',
  testClock: 'test clock',
  reconciliationException: 'reconciliation exception',
  user: 'team member',
  invitation: 'invitation',
  auditEntry: 'audit entry',
  paymentLink: 'payment link',
};

/** Ids carry the creation time (the clock's), so a time range of a list is a key range. */
export const newId = (entity: Entity, time = clock.now()): string => `${PREFIXES[entity]}_${ulid(time).toLowerCase()}`;

/**
 * Where a request's new objects take their ids and creation time from. A request with an `Idempotency-Key` has a
 * seed (scope, key and the key's first use), so running it again after a crash or timeout mints the same ids: a
 * conditional put then finds what the first run committed instead of creating a second object.
 */
export interface Origin {
  /** epoch ms of the request's first run */
  at: number;
  seed: string | null;
}

export const freshOrigin = (at = businessNow()): Origin => ({ at, seed: null });

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** The id of the `ordinal`-th `entity` the request creates: random without a seed, derived from it with one. */
export function idFor(entity: Entity, origin: Origin, ordinal = 0): string {
  if (origin.seed === null) return newId(entity, origin.at);
  const digest = createHash('sha256').update(`${origin.seed}#${entity}#${ordinal}`).digest();
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[digest[i]! & 31];
  return `${PREFIXES[entity]}_${encodeTime(origin.at, 10).toLowerCase()}${random}`;
}

const ULID_BODY = '[0-9abcdefghjkmnpqrstvwxyz]{26}';
const patterns = Object.fromEntries(Object.entries(PREFIXES).map(([entity, prefix]) => [entity, new RegExp(`^${prefix}_${ULID_BODY}$`)])) as Record<
  Entity,
  RegExp
>;

/** The shape of an id of `entity`, e.g. `^pay_[0-9a-hjkmnp-tv-z]{26}$` (for documents and response checks). */
export const idPattern = (entity: Entity): RegExp => patterns[entity];

/** A well-formed id of `entity` for examples in documents, e.g. `pay_01jq7k3v9qf2m7x4b6n5c0t1wz`. */
export const exampleId = (entity: Entity): string => `${PREFIXES[entity]}_01jq7k3v9qf2m7x4b6n5c0t1wz`;

/** True when `id` has the prefix and shape of `entity`: a malformed id is answered like a missing one (404). */
export const isId = (entity: Entity, id: unknown): id is string => typeof id === 'string' && patterns[entity].test(id);
