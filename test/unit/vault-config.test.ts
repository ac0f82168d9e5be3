import { describe, expect, it } from 'vitest';
import { readConfig } from '../../shared/config.ts';

/* How a function is told about the card vault (shared/config.ts): its tables, and one way to reach its keys (one per mode). */

const BASE = { TABLE_NAME: 'payments-unit' };
const KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const LIVE_KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809';
const TABLES = { VAULT_TABLE: 'vault', VAULT_CVC_TABLE: 'vault-cvc' };
const KEYS = { VAULT_TEST_KMS_KEY_ARN: KMS_KEY_ARN, VAULT_LIVE_KMS_KEY_ARN: LIVE_KMS_KEY_ARN };

describe('vault configuration', () => {
  it('accepts a function without the vault, one with its two KMS keys, and a local one with a key file', () => {
    expect(readConfig(BASE).VAULT_TABLE).toBeUndefined();
    expect(readConfig({ ...BASE, ...TABLES, ...KEYS })).toMatchObject(KEYS);
    expect(readConfig({ ...BASE, APP_ENV: 'local', ...TABLES, VAULT_KEY_FILE: '/tmp/vault-keys.json' }).VAULT_KEY_FILE).toBe('/tmp/vault-keys.json');
  });

  it("refuses a vault with no key, one mode's key only, both kinds of key, a CVC table missing, a key file outside local, a non-KMS ARN", () => {
    expect(() => readConfig({ ...BASE, ...TABLES })).toThrow(/exactly one of VAULT_TEST_KMS_KEY_ARN with VAULT_LIVE_KMS_KEY_ARN, and VAULT_KEY_FILE/);
    expect(() => readConfig({ ...BASE, ...TABLES, VAULT_TEST_KMS_KEY_ARN: KMS_KEY_ARN })).toThrow(/exactly one/);
    expect(() => readConfig({ ...BASE, APP_ENV: 'local', ...TABLES, ...KEYS, VAULT_KEY_FILE: '/k' })).toThrow(/exactly one/);
    expect(() => readConfig({ ...BASE, VAULT_TABLE: 'vault', ...KEYS })).toThrow(/VAULT_TABLE and VAULT_CVC_TABLE go together/);
    expect(() => readConfig({ ...BASE, ...TABLES, VAULT_KEY_FILE: '/tmp/vault-keys.json' })).toThrow(/APP_ENV=local only/);
    expect(() => readConfig({ ...BASE, ...TABLES, ...KEYS, VAULT_LIVE_KMS_KEY_ARN: 'arn:aws:s3:::bucket' })).toThrow(/VAULT_LIVE_KMS_KEY_ARN/);
  });
});
