import { describe, expect, it } from 'vitest';
import { readConfig } from '../../shared/config.ts';

/* How a function is told about the card vault (shared/config.ts): its table, and one way to reach its key. */

const BASE = { TABLE_NAME: 'payments-unit', APP_SECRET: 'unit-test-secret-not-for-production-0123456789' };
const KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

describe('vault configuration', () => {
  it('accepts a function without the vault, one with its KMS key, and a local one with a key file', () => {
    expect(readConfig(BASE).VAULT_TABLE).toBeUndefined();
    expect(readConfig({ ...BASE, VAULT_TABLE: 'vault', VAULT_KMS_KEY_ARN: KMS_KEY_ARN })).toMatchObject({ VAULT_KMS_KEY_ARN: KMS_KEY_ARN });
    expect(readConfig({ ...BASE, APP_ENV: 'local', VAULT_TABLE: 'vault', VAULT_KEY_FILE: '/tmp/vault.key' }).VAULT_KEY_FILE).toBe('/tmp/vault.key');
  });

  it('refuses a vault table with no key or two keys, a key file outside local, and an ARN that is not a KMS one', () => {
    expect(() => readConfig({ ...BASE, VAULT_TABLE: 'vault' })).toThrow(/exactly one of VAULT_KMS_KEY_ARN and VAULT_KEY_FILE/);
    expect(() => readConfig({ ...BASE, APP_ENV: 'local', VAULT_TABLE: 'vault', VAULT_KMS_KEY_ARN: KMS_KEY_ARN, VAULT_KEY_FILE: '/k' })).toThrow(
      /exactly one/,
    );
    expect(() => readConfig({ ...BASE, VAULT_TABLE: 'vault', VAULT_KEY_FILE: '/tmp/vault.key' })).toThrow(/APP_ENV=local only/);
    expect(() => readConfig({ ...BASE, VAULT_TABLE: 'vault', VAULT_KMS_KEY_ARN: 'arn:aws:s3:::bucket' })).toThrow(/VAULT_KMS_KEY_ARN/);
  });
});
