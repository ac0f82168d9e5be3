import { describe, expect, it } from 'vitest';
import { newWebhookSecret, openSecret, sealSecret } from '../../shared/webhooks/sealed-secret.ts';

describe('sealed webhook secrets', () => {
  it('open back to the secret, and sealing twice never gives the same text', async () => {
    const secret = newWebhookSecret();
    const first = await sealSecret(secret, 'mer_a', 'whk_a');
    const second = await sealSecret(secret, 'mer_a', 'whk_a');
    expect(first).not.toBe(second);
    expect(first).not.toContain(secret.slice(6, 20));
    expect(await openSecret(first, 'mer_a', 'whk_a')).toBe(secret);
    expect(await openSecret(second, 'mer_a', 'whk_a')).toBe(secret);
  });

  it('do not open under another endpoint or merchant, or once altered', async () => {
    const sealed = await sealSecret(newWebhookSecret(), 'mer_a', 'whk_a');
    const [version, iv, body] = sealed.split('.');
    const flipped = `${version}.${iv}.${body!.slice(0, 10)}${body![10] === 'A' ? 'B' : 'A'}${body!.slice(11)}`;
    await expect(openSecret(sealed, 'mer_a', 'whk_b')).rejects.toThrow();
    await expect(openSecret(sealed, 'mer_b', 'whk_a')).rejects.toThrow();
    await expect(openSecret(flipped, 'mer_a', 'whk_a')).rejects.toThrow();
    await expect(openSecret('whsec_plain', 'mer_a', 'whk_a')).rejects.toThrow('Unknown sealed secret format');
  });
});
