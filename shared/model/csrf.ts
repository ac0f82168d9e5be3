import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { constantTimeEqual, randomBase62 } from './credentials.ts';

/**
 * A cookie session's CSRF token (docs/api.md "Dashboard sessions"): random, kept with the session sealed (AES-256-GCM)
 * under a key derived from the session token, which the table never holds (only its hash). So a table export shows
 * no usable token, no service secret is needed to read it, and `GET /api/auth/session` can give it to the page again.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const newCsrfToken = (): string => randomBase62();

const keyOf = (sessionToken: string) => Buffer.from(hkdfSync('sha256', sessionToken, '', 'csrf-token/v1', 32));

export function sealCsrf(csrfToken: string, sessionToken: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionToken), iv);
  const sealed = Buffer.concat([cipher.update(csrfToken, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

/** The CSRF token sealed with the session, or null when it does not open under this session token. */
export function openCsrf(sealed: string, sessionToken: string): string | null {
  const [iv, body] = sealed.split('.');
  if (!iv || !body) return null;
  try {
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionToken), Buffer.from(iv, 'base64url')).setAuthTag(
      bytes.subarray(bytes.length - TAG_BYTES),
    );
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** Whether the `X-CSRF-Token` sent is the session's (constant time); a session without one matches nothing. */
export const csrfMatches = (sent: string | undefined, expected: string | null): boolean =>
  expected !== null && sent !== undefined && constantTimeEqual(sent, expected);
