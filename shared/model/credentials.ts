import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 32 random bytes from the CSPRNG, written in base62 (43 characters). */
export function randomBase62(bytes = 32): string {
  let n = BigInt(`0x${randomBytes(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(43, '0');
}

export type KeyMode = 'live' | 'test';
/** `restricted` (`rk_`): a secret key limited to the permission groups it names */
export type KeyType = 'secret' | 'publishable' | 'restricted';
export const API_KEY_PREFIX: Record<KeyMode, string> = { live: 'sk_live_', test: 'sk_test_' };
/** Publishable keys are public by design: they may only create payment methods and load the hosted pages. */
export const PUBLISHABLE_KEY_PREFIX: Record<KeyMode, string> = { live: 'pk_live_', test: 'pk_test_' };
export const RESTRICTED_KEY_PREFIX: Record<KeyMode, string> = { live: 'rk_live_', test: 'rk_test_' };
export const KEY_PREFIX: Record<KeyType, Record<KeyMode, string>> = {
  secret: API_KEY_PREFIX,
  publishable: PUBLISHABLE_KEY_PREFIX,
  restricted: RESTRICTED_KEY_PREFIX,
};
export const SESSION_PREFIX = 'sess_';

export const newApiKey = (mode: KeyMode, type: KeyType = 'secret'): string => KEY_PREFIX[type][mode] + randomBase62();
export const newSessionToken = (): string => SESSION_PREFIX + randomBase62();

/** Credentials are stored only as their SHA-256: high-entropy secrets need no slow hash. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export const hmac = (secret: string, value: string): string => createHmac('sha256', secret).update(value).digest('hex');

export const constantTimeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** A 6-digit one-time password from the CSPRNG (leading zeros kept). */
export const newOtp = (): string => randomInt(0, 1_000_000).toString().padStart(6, '0');
