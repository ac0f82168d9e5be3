import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { appSecret } from '../secrets.ts';

/**
 * Webhook signing secrets must be readable again to sign each delivery, so they cannot be hashed like API keys.
 * They are sealed instead: AES-256-GCM under a key derived (HKDF-SHA256) from the app secret, bound to the
 * endpoint it belongs to. A table export or a stray read of the item shows no usable secret.
 * Format: `v1.<iv base64url>.<ciphertext + tag base64url>`.
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

let key: Promise<Buffer> | undefined;
const sealingKey = (): Promise<Buffer> => {
  key ??= appSecret().then((secret) => Buffer.from(hkdfSync('sha256', secret, '', 'webhook-signing-secret/v1', 32)));
  return key;
};

/** The endpoint a sealed secret belongs to: opening it under another endpoint fails. */
const boundTo = (merchantId: string, webhookId: string) => Buffer.from(`${merchantId}/${webhookId}`);

export async function sealSecret(secret: string, merchantId: string, webhookId: string): Promise<string> {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await sealingKey(), iv).setAAD(boundTo(merchantId, webhookId));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

export async function openSecret(sealed: string, merchantId: string, webhookId: string): Promise<string> {
  const [version, iv, body] = sealed.split('.');
  if (version !== VERSION || !iv || !body) throw new Error('Unknown sealed secret format');
  const bytes = Buffer.from(body, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', await sealingKey(), Buffer.from(iv, 'base64url'))
    .setAAD(boundTo(merchantId, webhookId))
    .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
}
