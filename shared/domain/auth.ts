import { clock, isoNow } from './clock.ts';
import { API_KEY_PREFIX, SESSION_PREFIX, sha256 } from './credentials.ts';
import { Unauthorized } from './errors.ts';
import { getApiKeyByHash, touchApiKey } from '../store/api-keys.ts';
import { getSession } from '../store/sessions.ts';

export interface Merchant {
  id: string;
  credential: 'api_key' | 'session';
  /** true only for `sk_live_` keys; `sk_test_` keys and sign-in sessions act in test mode (sandbox providers). */
  livemode: boolean;
}

const LAST_USED_EVERY_MS = 60_000;

/** Resolves a bearer credential (API key or sign-in session token) to the merchant, or throws 401. */
export async function authenticate(credential: string | undefined): Promise<Merchant> {
  if (!credential) throw new Unauthorized();
  if (credential.startsWith(API_KEY_PREFIX.live) || credential.startsWith(API_KEY_PREFIX.test)) {
    const hash = sha256(credential);
    const key = await getApiKeyByHash(hash);
    if (!key || key.status !== 'active') throw new Unauthorized();
    const cutoff = new Date(clock.now() - LAST_USED_EVERY_MS).toISOString();
    if (!key.last_used || key.last_used < cutoff) await touchApiKey(hash, key, isoNow(), cutoff);
    return { id: key.merchant_id, credential: 'api_key', livemode: key.mode === 'live' };
  }
  if (credential.startsWith(SESSION_PREFIX)) {
    const session = await getSession(sha256(credential));
    if (!session || session.expires_ms <= clock.now()) throw new Unauthorized();
    return { id: session.merchant_id, credential: 'session', livemode: false };
  }
  throw new Unauthorized();
}
