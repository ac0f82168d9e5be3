import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The local vault keys: one per mode (test and live cards are sealed under different keys), 32 random bytes each,
 * base64, as JSON `{"test": …, "live": …}` in a file only its owner may read (0600), written once and then kept, so
 * cards a `--persist` runtime sealed still open after a restart (shared/vault-crypto.ts reads it).
 */
export function ensureVaultKeyFile(path: string): void {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  const key = () => randomBytes(32).toString('base64');
  try {
    writeFileSync(path, `${JSON.stringify({ test: key(), live: key() })}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // another process (a second `npm start`) wrote it first: that one is the key
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
