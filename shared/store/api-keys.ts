import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { KeyMode, KeyType } from '../model/credentials.ts';
import { GROUPS, type Grants } from '../model/permissions.ts';
import type { ApiKeyState, Transition } from '../model/state-machines.ts';
import { type Created, db, TABLE } from './client.ts';
import { commit } from './commit.ts';
import type { Target } from '../model/targets.ts';
import { nullable, picklistOf, recordReader, Text } from './item-schemas.ts';
import { API_KEY_HASH_COPIES, apiKeyKeys } from './keys.ts';
import { listPage, merchantSet, type Page, type PageQuery } from './pagination.ts';

export interface ApiKeyRecord {
  id: string;
  merchant_id: string;
  name: string;
  mode: KeyMode;
  key_type: KeyType;
  prefix: string;
  last4: string;
  status: ApiKeyState;
  created_at: string;
  last_used: string | null;
  key_hash: string;
  /** a publishable key itself (public by design, listed in full); a secret key is kept only as its hash */
  publishable_key?: string;
  /** a restricted key's grants (absent for other keys) */
  permissions?: Grants;
  /**
   * when the key stops working (ISO), or null; not `expires_at`, the table's TTL attribute: an expired key is kept, so
   * its 401 can say when it expired
   */
  valid_until: string | null;
  /** the CIDRs the key may be used from, or null (anywhere) */
  allowed_ips: string[] | null;
}

/** What authentication reads: one consistent GetItem of a copy of the key's hash item (keys.ts `API_KEY_HASH_COPIES`). */
export type ApiKeyAuthRecord = Pick<
  ApiKeyRecord,
  'merchant_id' | 'mode' | 'key_type' | 'status' | 'last_used' | 'last4' | 'permissions' | 'valid_until' | 'allowed_ips'
> & { key_id: string };

/** The two items of a key as the table holds them, checked when read back (see item-schemas.ts). */
const Mode = picklistOf<KeyMode>()(['live', 'test']);
const Type = picklistOf<KeyType>()(['secret', 'publishable', 'restricted']);
const KeyStatus = picklistOf<ApiKeyState>()(['active', 'rolled', 'revoked']);
const Permissions = v.record(v.picklist(GROUPS), v.picklist(['read', 'write']));
const AllowedIps = nullable(v.array(Text));
const ApiKeyItem = v.object({
  id: Text,
  merchant_id: Text,
  name: Text,
  mode: Mode,
  key_type: Type,
  prefix: Text,
  last4: Text,
  status: KeyStatus,
  created_at: Text,
  last_used: nullable(Text),
  key_hash: Text,
  publishable_key: v.optional(Text),
  permissions: v.optional(Permissions),
  valid_until: nullable(Text),
  allowed_ips: AllowedIps,
});
/** `last_used` is written null with the key. */
const ApiKeyAuthItem = v.object({
  merchant_id: Text,
  key_id: Text,
  mode: Mode,
  key_type: Type,
  status: KeyStatus,
  last_used: nullable(Text),
  last4: Text,
  permissions: v.optional(Permissions),
  valid_until: nullable(Text),
  allowed_ips: AllowedIps,
});
const apiKeyOf: (item: Record<string, unknown>) => ApiKeyRecord = recordReader('API key', ApiKeyItem);
const apiKeyAuthOf: (item: Record<string, unknown>) => ApiKeyAuthRecord = recordReader('API key hash', ApiKeyAuthItem);

const authOf = (key: ApiKeyRecord): ApiKeyAuthRecord => ({
  merchant_id: key.merchant_id,
  key_id: key.id,
  mode: key.mode,
  key_type: key.key_type,
  status: key.status,
  last_used: key.last_used,
  last4: key.last4,
  ...(key.permissions ? { permissions: key.permissions } : {}),
  valid_until: key.valid_until,
  allowed_ips: key.allowed_ips,
});

const keyTarget = (key: Pick<ApiKeyRecord, 'merchant_id' | 'id'>): Target => ({ entity: 'api_key', id: key.id, merchantId: key.merchant_id });
/** Every copy of a key's hash item: `from` 1 leaves out the first (0). */
const copiesOf = (keyHash: string, from = 0): Target[] =>
  Array.from({ length: API_KEY_HASH_COPIES - from }, (_, i) => ({ entity: 'api_key_hash', keyHash, copy: from + i }));

/**
 * The listed key item and every copy of the hash-lookup item are written together, so a key is never half-created.
 * A key already stored under its id (a retried create) is answered instead, and the new hash is not written.
 */
export async function putApiKey(key: ApiKeyRecord): Promise<Created<ApiKeyRecord>> {
  const put = await commit({
    writes: [
      { create: keyTarget(key), item: { ...key }, refusal: 'exists' },
      ...copiesOf(key.key_hash).map((copy) => ({ create: copy, item: { ...authOf(key) } })),
    ],
  });
  if (put === 'committed') return { created: true, record: key };
  const existing = put === 'exists' ? await getApiKey(key.merchant_id, key.id) : undefined;
  if (!existing) throw new Error(`API key ${key.id} refused, and no key is stored under its id`);
  return { created: false, record: existing };
}

export async function getApiKey(merchantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: apiKeyKeys.item(merchantId, keyId), ConsistentRead: true }));
  return out.Item && apiKeyOf(out.Item);
}

/** One copy of the hash item, at random. */
export async function getApiKeyByHash(keyHash: string): Promise<ApiKeyAuthRecord | undefined> {
  const copy = Math.floor(Math.random() * API_KEY_HASH_COPIES);
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: apiKeyKeys.byHash(keyHash, copy), ConsistentRead: true }));
  return out.Item && apiKeyAuthOf(out.Item);
}

/** A page of the merchant's keys of `modes`, newest first. */
export async function listApiKeys(merchantId: string, page: PageQuery, modes: readonly KeyMode[]): Promise<Page<ApiKeyRecord>> {
  const filter = {
    FilterExpression: `#mode IN (${modes.map((_, i) => `:m${i}`).join(', ')})`,
    ExpressionAttributeNames: { '#mode': 'mode' },
    ExpressionAttributeValues: Object.fromEntries(modes.map((mode, i) => [`:m${i}`, mode])),
  };
  const result = await listPage({ ...merchantSet(apiKeyKeys, merchantId), filter }, page);
  return { data: result.data.map(apiKeyOf), has_more: result.has_more };
}

/** `revoke` (API_KEY) of the listed item and every copy of the hash item at once; false when the key is gone. */
export async function revokeApiKey(key: ApiKeyRecord, revoke: Transition): Promise<boolean> {
  const revoked = await commit({ writes: [keyTarget(key), ...copiesOf(key.key_hash)].map((target) => ({ update: target, transition: revoke })) });
  return revoked === 'committed';
}

/**
 * `roll` (API_KEY) of the old key, with its new `valid_until`, and the successor's items, in one transaction: the
 * successor exists exactly when the old key is rolled. `refused`: the old key is no longer active (or the successor's id is taken).
 */
export async function rollApiKey(old: ApiKeyRecord, roll: Transition, validUntil: string, successor: ApiKeyRecord): Promise<boolean> {
  const rolled = await commit({
    writes: [
      ...[keyTarget(old), ...copiesOf(old.key_hash)].map((target) => ({ update: target, transition: roll, set: { valid_until: validUntil } })),
      { create: keyTarget(successor), item: { ...successor } },
      ...copiesOf(successor.key_hash).map((copy) => ({ create: copy, item: { ...authOf(successor) } })),
    ],
  });
  return rolled === 'committed';
}

/**
 * Records use of a key at most once a minute: the condition on the first hash item lets one request per minute
 * through, so a busy key costs one extra write a minute, not one per request. Every copy gets the time, since any of
 * them may be the one the next request reads. A revocation writes the first copy too, so it and a touch never
 * interleave. Updates only: GET functions may write nothing else (infra/constructs/functions.ts).
 */
export async function touchApiKey(keyHash: string, auth: ApiKeyAuthRecord, now: string, cutoff: string): Promise<void> {
  const [first, ...others] = copiesOf(keyHash);
  // refused: used within the minute, or revoked; nothing to record
  await commit({
    writes: [
      { update: first!, inStates: ['active', 'rolled'], below: { last_used: cutoff }, set: { last_used: now } },
      ...[keyTarget({ merchant_id: auth.merchant_id, id: auth.key_id }), ...others].map((target) => ({ update: target, set: { last_used: now } })),
    ],
  });
}
