import { describe, expect, it } from 'vitest';
import { readConfig } from '../../shared/config.ts';
import { SECRET_PURPOSES, SECRETS } from '../../shared/secret-purposes.ts';

/* How a function is given its secrets (shared/config.ts): one per purpose, a value locally or an ARN in AWS. */

const BASE = { TABLE_NAME: 'payments-unit' };
const LOCAL = { ...BASE, APP_ENV: 'local' };
const arn = (name: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name}-AbCdEf`;
const valueOf = (purpose: string) => `unit-${purpose}-secret-not-for-production-0123456789`;

describe('secrets configuration', () => {
  it('accepts a function with no secret, a local one with a value per purpose, and one in AWS with ARNs', () => {
    expect(readConfig(BASE).OTP_SECRET_ARN).toBeUndefined();
    const local = readConfig({ ...LOCAL, ...Object.fromEntries(SECRET_PURPOSES.map((p) => [SECRETS[p].variable, valueOf(p)])) });
    expect(local.CREDENTIALS_SECRET).toBe(valueOf('credentials'));
    expect(readConfig({ ...BASE, OTP_SECRET_ARN: arn('otp'), LINK_SECRET_ARN: arn('links') })).toMatchObject({ OTP_SECRET_ARN: arn('otp') });
  });

  it('refuses two purposes sharing one value: each secret has one purpose', () => {
    const same = valueOf('shared');
    expect(() => readConfig({ ...LOCAL, OTP_SECRET: same, IDEMPOTENCY_SECRET: same })).toThrow(
      /OTP_SECRET and IDEMPOTENCY_SECRET hold the same value/,
    );
  });

  it('refuses a value and an ARN for one purpose, a value outside local, a short value and an ARN that is not a secret', () => {
    expect(() => readConfig({ ...LOCAL, LINK_SECRET: valueOf('links'), LINK_SECRET_ARN: arn('links') })).toThrow(/both set/);
    expect(() => readConfig({ ...BASE, CREDENTIALS_SECRET: valueOf('credentials') })).toThrow(/CREDENTIALS_SECRET is for APP_ENV=local only/);
    expect(() => readConfig({ ...LOCAL, FINGERPRINT_SECRET: 'short' })).toThrow(/FINGERPRINT_SECRET/);
    expect(() => readConfig({ ...BASE, WEBHOOK_SEALING_SECRET_ARN: 'arn:aws:kms:eu-west-1:123456789012:key/x' })).toThrow(
      /WEBHOOK_SEALING_SECRET_ARN/,
    );
  });
});
