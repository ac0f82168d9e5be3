import * as apiKeys from '../store/api-keys.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';
import type { PageQuery } from '../store/pagination.ts';
import type { Merchant } from './auth.ts';
import { clock } from '../model/clock.ts';
import { API_KEY_PREFIX, KEY_PREFIX, type KeyMode, type KeyType, newApiKey, sha256 } from '../model/credentials.ts';
import { BadRequest, NotFound } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import type { Grants } from '../model/permissions.ts';
import { API_KEY, transition } from '../model/state-machines.ts';

/** What a key looks like after creation: a secret key by prefix and last4, never the key itself; a publishable key in full. */
const view = (k: ApiKeyRecord) => ({
  id: k.id,
  object: 'api_key' as const,
  type: k.key_type,
  name: k.name,
  ...(k.publishable_key ? { key: k.publishable_key } : {}),
  prefix: k.prefix,
  last4: k.last4,
  mode: k.mode,
  status: k.status,
  permissions: k.permissions ?? null,
  expires_at: k.valid_until,
  allowed_ips: k.allowed_ips,
  created_at: k.created_at,
  last_used: k.last_used,
});

/** What a key is limited to besides its mode: a restricted key's groups, an expiry, the addresses it may be used from. */
export interface KeyLimits {
  permissions?: Grants;
  /** ISO, in the future */
  expires_at?: string;
  allowed_ips?: string[];
}

/**
 * Issues a key; the full key is in this answer only (it is stored as its SHA-256). A retried create (same origin)
 * answers the key its first run issued, without the key itself, which is not kept.
 */
export async function createApiKey(
  merchantId: string,
  input: { name: string; mode: KeyMode; type?: KeyType } & KeyLimits,
  origin: Origin = freshOrigin(),
) {
  const type = input.type ?? 'secret';
  const { key, record } = newKeyRecord(merchantId, { ...input, type }, origin);
  const put = await apiKeys.putApiKey(record);
  return put.created ? { ...view(record), key } : { ...view(put.record), key: undefined };
}

function newKeyRecord(merchantId: string, input: { name: string; mode: KeyMode; type: KeyType } & KeyLimits, origin: Origin) {
  const key = newApiKey(input.mode, input.type);
  const record: ApiKeyRecord = {
    id: idFor('apiKey', origin),
    merchant_id: merchantId,
    name: input.name,
    mode: input.mode,
    key_type: input.type,
    prefix: KEY_PREFIX[input.type][input.mode],
    last4: key.slice(-4),
    status: 'active',
    created_at: new Date(origin.at).toISOString(),
    last_used: null,
    key_hash: sha256(key),
    ...(input.type === 'publishable' ? { publishable_key: key } : {}),
    ...(input.type === 'restricted' ? { permissions: input.permissions } : {}),
    valid_until: input.expires_at === undefined ? null : new Date(input.expires_at).toISOString(),
    allowed_ips: input.allowed_ips ?? null,
  };
  return { key, record };
}

/**
 * The key modes a credential manages (docs/api.md "API keys"): a sign-in session both, an API key its own mode only, so
 * a leaked test key can never mint a live one.
 */
const managedModes = (merchant: Merchant): readonly KeyMode[] =>
  merchant.credential === 'session' ? ['test', 'live'] : [merchant.livemode ? 'live' : 'test'];

/** A key issued by the merchant's credential: of a mode it manages, else 400 naming `mode`. */
export async function issueApiKey(
  merchant: Merchant,
  input: { name: string; mode?: KeyMode; type?: KeyType } & KeyLimits,
  origin: Origin = freshOrigin(),
) {
  const own: KeyMode = merchant.livemode ? 'live' : 'test';
  const mode = input.mode ?? own;
  if (!managedModes(merchant).includes(mode)) {
    throw new BadRequest('parameter_invalid', 'mode', `an ${API_KEY_PREFIX[own]} key manages ${own} keys only; sign in to manage ${mode} keys`);
  }
  const type = input.type ?? 'secret';
  if (type === 'restricted' && !input.permissions) throw new BadRequest('parameter_missing', 'permissions', 'a restricted key names its permissions');
  if (type !== 'restricted' && input.permissions) throw new BadRequest('parameter_invalid', 'permissions', 'only a restricted key takes permissions');
  // shoppers' browsers use a publishable key, from addresses nobody can list
  if (type === 'publishable' && input.allowed_ips)
    throw new BadRequest('parameter_invalid', 'allowed_ips', 'a publishable key is used from anywhere');
  if (input.expires_at !== undefined && Date.parse(input.expires_at) <= clock.now())
    throw new BadRequest('parameter_invalid', 'expires_at', 'expires_at must be in the future');
  return createApiKey(merchant.id, { ...input, mode, type }, origin);
}

/** The keys of the modes the credential manages, newest first. */
export async function listApiKeys(merchant: Merchant, page: PageQuery) {
  const result = await apiKeys.listApiKeys(merchant.id, page, managedModes(merchant));
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}

/** A key of a mode the credential manages, else 404. */
async function managedKey(merchant: Merchant, keyId: string): Promise<ApiKeyRecord> {
  const key = await apiKeys.getApiKey(merchant.id, keyId);
  if (!key || !managedModes(merchant).includes(key.mode)) throw new NotFound();
  return key;
}

/** Revoked keys answer 401 from the next request on; revoking twice is fine. A key of a mode not managed: 404. */
export async function revokeApiKey(merchant: Merchant, keyId: string) {
  const key = await managedKey(merchant, keyId);
  const step = transition('API key', API_KEY, 'revoke', key.status);
  if (!(await apiKeys.revokeApiKey(key, step))) throw new NotFound();
  return { ...view(key), status: step.to };
}

const HOUR_MS = 3_600_000;

/**
 * A new key of the same kind (type, mode, name, permissions, allowed addresses; no expiry), answered with the key in
 * full once; the old key keeps working `expires_in_hours` more (0: not at all), or until its own expiry if sooner.
 * A retried roll (same origin) answers the successor its first run made, without the key.
 */
export async function rollApiKey(merchant: Merchant, keyId: string, input: { expires_in_hours: number }, origin: Origin = freshOrigin()) {
  const old = await managedKey(merchant, keyId);
  if (old.status !== 'active') {
    const made = await apiKeys.getApiKey(merchant.id, idFor('apiKey', origin));
    if (made) return { ...view(made), key: undefined };
  }
  const step = transition('API key', API_KEY, 'roll', old.status);
  const until = new Date(clock.now() + input.expires_in_hours * HOUR_MS).toISOString();
  const validUntil = old.valid_until !== null && old.valid_until < until ? old.valid_until : until;
  const { key, record } = newKeyRecord(
    merchant.id,
    {
      name: old.name,
      mode: old.mode,
      type: old.key_type,
      ...(old.permissions && { permissions: old.permissions }),
      ...(old.allowed_ips && { allowed_ips: old.allowed_ips }),
    },
    origin,
  );
  if (!(await apiKeys.rollApiKey(old, step, validUntil, record))) {
    // rolled or revoked meanwhile: say so as the state table does
    transition('API key', API_KEY, 'roll', (await managedKey(merchant, keyId)).status);
    throw new Error(`API key ${old.id} could not be rolled`);
  }
  return { ...view(record), key };
}
