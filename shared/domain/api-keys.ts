import * as apiKeys from '../store/api-keys.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';
import type { PageQuery } from '../store/pagination.ts';
import type { Merchant } from './auth.ts';
import { API_KEY_PREFIX, KEY_PREFIX, type KeyMode, type KeyType, newApiKey, sha256 } from '../model/credentials.ts';
import { BadRequest, NotFound } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
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
  created_at: k.created_at,
  last_used: k.last_used,
});

/**
 * Issues a key; the full key is in this answer only (it is stored as its SHA-256). A retried create (same origin)
 * answers the key its first run issued, without the key itself, which is not kept.
 */
export async function createApiKey(merchantId: string, input: { name: string; mode: KeyMode; type?: KeyType }, origin: Origin = freshOrigin()) {
  const type = input.type ?? 'secret';
  const key = newApiKey(input.mode, type);
  const record: ApiKeyRecord = {
    id: idFor('apiKey', origin),
    merchant_id: merchantId,
    name: input.name,
    mode: input.mode,
    key_type: type,
    prefix: KEY_PREFIX[type][input.mode],
    last4: key.slice(-4),
    status: 'active',
    created_at: new Date(origin.at).toISOString(),
    last_used: null,
    key_hash: sha256(key),
    ...(type === 'publishable' ? { publishable_key: key } : {}),
  };
  const put = await apiKeys.putApiKey(record);
  return put.created ? { ...view(record), key } : { ...view(put.record), key: undefined };
}

/**
 * The key modes a credential manages (docs/api.md "API keys"): a sign-in session both, an API key its own mode only, so
 * a leaked test key can never mint a live one.
 */
const managedModes = (merchant: Merchant): readonly KeyMode[] =>
  merchant.credential === 'session' ? ['test', 'live'] : [merchant.livemode ? 'live' : 'test'];

/** A key issued by the merchant's credential: of a mode it manages, else 400 naming `mode`. */
export async function issueApiKey(merchant: Merchant, input: { name: string; mode?: KeyMode; type?: KeyType }, origin: Origin = freshOrigin()) {
  const own: KeyMode = merchant.livemode ? 'live' : 'test';
  const mode = input.mode ?? own;
  if (!managedModes(merchant).includes(mode)) {
    throw new BadRequest('parameter_invalid', 'mode', `an ${API_KEY_PREFIX[own]} key manages ${own} keys only; sign in to manage ${mode} keys`);
  }
  return createApiKey(merchant.id, { name: input.name, mode, type: input.type }, origin);
}

/** The keys of the modes the credential manages, newest first. */
export async function listApiKeys(merchant: Merchant, page: PageQuery) {
  const result = await apiKeys.listApiKeys(merchant.id, page, managedModes(merchant));
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}

/** Revoked keys answer 401 from the next request on; revoking twice is fine. A key of a mode not managed: 404. */
export async function revokeApiKey(merchant: Merchant, keyId: string) {
  const key = await apiKeys.getApiKey(merchant.id, keyId);
  if (!key || !managedModes(merchant).includes(key.mode)) throw new NotFound();
  const step = transition('API key', API_KEY, 'revoke', key.status);
  if (!(await apiKeys.revokeApiKey(key, step))) throw new NotFound();
  return { ...view(key), status: step.to };
}
