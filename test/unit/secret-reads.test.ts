import { afterEach, describe, expect, it, vi } from 'vitest';
import { config } from '../../shared/config.ts';
import { readSecret } from '../../shared/secrets.ts';
import { sealer } from '../../shared/sealing.ts';

/* A function reads a secret by its purpose, and only one it was given (shared/secrets.ts). */

afterEach(() => vi.restoreAllMocks());

describe('reading a secret by its purpose', () => {
  it('gives each purpose its own value', async () => {
    const values = await Promise.all((['otp', 'links', 'fingerprints', 'credentials', 'webhooks', 'idempotency'] as const).map(readSecret));
    expect(new Set(values).size).toBe(6);
    expect(await readSecret('otp')).toBe(process.env.OTP_SECRET);
  });

  it('fails loudly for a purpose the function was not given, and so does a sealer of that purpose', async () => {
    // Prepare: this function was given no provider-credentials secret (neither the value nor, in AWS, the ARN)
    vi.spyOn(config, 'CREDENTIALS_SECRET', 'get').mockReturnValue(undefined);
    // Act + Assess
    await expect(readSecret('credentials')).rejects.toThrow('This function may not use the credentials secret');
    await expect(sealer('connector-credentials/v1', 'credentials').seal('sk_test_x', 'mer_1', 'con_1')).rejects.toThrow(
      'may not use the credentials secret',
    );
    // the other purposes still serve
    const webhooks = sealer('webhook-signing-secret/v1', 'webhooks');
    expect(await webhooks.open(await webhooks.seal('whsec_x', 'mer_1', 'we_1'), 'mer_1', 'we_1')).toBe('whsec_x');
  });
});
