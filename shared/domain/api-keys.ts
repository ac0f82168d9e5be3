import { type ApiKeyRecord, getApiKey, listApiKeys as listKeys, putApiKey, revokeApiKey as revoke } from '../store/api-keys.ts';
import type { PageQuery } from '../store/pagination.ts';
import { API_KEY_PREFIX, type KeyMode, newApiKey, sha256 } from './credentials.ts';
import { NotFound } from './errors.ts';
import { freshOrigin, idFor, type Origin } from './ids.ts';

/** What a key looks like after creation: identified by prefix and last4, never the key itself. */
const view = (k: ApiKeyRecord) => ({
  id: k.id,
  object: 'api_key' as const,
  name: k.name,
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
export async function createApiKey(merchantId: string, input: { name: string; mode: KeyMode }, origin: Origin = freshOrigin()) {
  const key = newApiKey(input.mode);
  const record: ApiKeyRecord = {
    id: idFor('apiKey', origin),
    merchant_id: merchantId,
    name: input.name,
    mode: input.mode,
    prefix: API_KEY_PREFIX[input.mode],
    last4: key.slice(-4),
    status: 'active',
    created_at: new Date(origin.at).toISOString(),
    last_used: null,
    key_hash: sha256(key),
  };
  const put = await putApiKey(record);
  return put.created ? { ...view(record), key } : { ...view(put.record), key: undefined };
}

export async function listApiKeys(merchantId: string, page: PageQuery) {
  const result = await listKeys(merchantId, page);
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}

/** Revoked keys answer 401 from the next request on; revoking twice is fine. */
export async function revokeApiKey(merchantId: string, keyId: string) {
  const key = await getApiKey(merchantId, keyId);
  if (!key) throw new NotFound();
  if (key.status !== 'revoked') await revoke(key);
  return { ...view(key), status: 'revoked' as const };
}
