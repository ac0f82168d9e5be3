import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretPurpose } from './secret-purposes.ts';
import { readSecret } from './secrets.ts';

/**
 * Secrets the service must read again (webhook signing secrets, provider credentials) cannot be hashed like API
 * keys. They are sealed instead: AES-256-GCM under a key derived (HKDF-SHA256) from the secret of their kind
 * (provider credentials or webhook signing secrets, shared/secret-purposes.ts), one key per purpose, bound to the
 * object the secret belongs to (opening it under another object fails). A table export or a stray read of an item
 * shows no usable secret. Format: `v1.<iv base64url>.<ciphertext + tag base64url>`.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealer {
  seal(plaintext: string, ...boundTo: string[]): Promise<string>;
  open(sealed: string, ...boundTo: string[]): Promise<string>;
}

/** A sealer for one purpose (the HKDF info string, e.g. `webhook-signing-secret/v1`), keyed by the secret of `secret`. */
export function sealer(purpose: string, secret: Extract<SecretPurpose, 'credentials' | 'webhooks'>): Sealer {
  // Derived again only when the secret read is another value (shared/secrets.ts reads it with a cache age).
  let derived: { secret: string; key: Buffer } | undefined;
  const sealingKey = async (): Promise<Buffer> => {
    const value = await readSecret(secret);
    if (derived?.secret !== value) derived = { secret: value, key: Buffer.from(hkdfSync('sha256', value, '', purpose, 32)) };
    return derived.key;
  };
  const aad = (boundTo: string[]) => Buffer.from(boundTo.join('/'));
  return {
    async seal(plaintext, ...boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', await sealingKey(), iv).setAAD(aad(boundTo));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
    },
    async open(sealed, ...boundTo) {
      const [version, iv, body] = sealed.split('.');
      if (version !== VERSION || !iv || !body) throw new Error('Unknown sealed secret format');
      const bytes = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', await sealingKey(), Buffer.from(iv, 'base64url'))
        .setAAD(aad(boundTo))
        .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
