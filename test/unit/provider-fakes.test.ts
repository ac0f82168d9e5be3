import { describe, expect, it } from 'vitest';
import { providerFakeSettings, runProviderFakes, SettingError } from '../../infra/local/provider-fakes.ts';

/** The local runtime's provider fakes: what `npm start` reads from its environment, and what it starts and prints. */
describe('provider fake settings', () => {
  it('runs the three fakes on 12111, 12112 and 12113 by default', () => {
    const settings = providerFakeSettings({});
    expect(settings.on).toBe(true);
    expect(settings.fakes.map((f) => [f.provider, f.port, f.userUrl])).toEqual([
      ['stripe', 12111, undefined],
      ['adyen', 12112, undefined],
      ['braintree', 12113, undefined],
    ]);
  });

  it('takes each port from its variable (0: any free port), PROVIDER_FAKES=off, and the base URLs the user set', () => {
    const settings = providerFakeSettings({
      PROVIDER_FAKES: 'OFF',
      STRIPE_FAKE_PORT: '0',
      BRAINTREE_FAKE_PORT: '13113',
      ADYEN_CHECKOUT_BASE_URL: 'https://adyen.staging.test',
    });
    expect(settings.on).toBe(false);
    expect(settings.fakes.map((f) => [f.provider, f.port, f.userUrl])).toEqual([
      ['stripe', 0, undefined],
      ['adyen', 12112, 'https://adyen.staging.test'],
      ['braintree', 13113, undefined],
    ]);
  });

  it.each([
    [{ STRIPE_FAKE_PORT: 'x' }, 'STRIPE_FAKE_PORT must be a port number, got "x"'],
    [{ ADYEN_FAKE_PORT: '70000' }, 'ADYEN_FAKE_PORT must be a port number, got "70000"'],
    [{ PROVIDER_FAKES: 'no' }, 'PROVIDER_FAKES must be on or off, got "no"'],
  ])('refuses %j', (env, message) => {
    expect(() => providerFakeSettings(env)).toThrow(new SettingError(message));
  });
});

describe('provider fakes of the local runtime', () => {
  const api = { url: 'http://localhost:3000', apiKey: 'sk_test_demo' };

  it('with PROVIDER_FAKES=off starts none, sets no base URL and says so', async () => {
    const fakes = await runProviderFakes(providerFakeSettings({ PROVIDER_FAKES: 'off' }));
    expect(fakes.env).toEqual({});
    expect(fakes.banner(api)).toEqual(['  Provider fakes off (PROVIDER_FAKES=off): connectors call the providers']);
    await fakes.close();
  });

  it('never replaces a base URL the user set: that fake is not started, the others are, each with its curl', async () => {
    const settings = providerFakeSettings({
      STRIPE_API_BASE_URL: 'http://127.0.0.1:9999',
      ADYEN_FAKE_PORT: '0',
      BRAINTREE_FAKE_PORT: '0',
    });
    const fakes = await runProviderFakes(settings);
    try {
      expect(Object.keys(fakes.env).sort()).toEqual(['ADYEN_CHECKOUT_BASE_URL', 'BRAINTREE_GATEWAY_URL']);
      const banner = fakes.banner(api).join('\n');
      expect(banner).toContain('  Stripe         http://127.0.0.1:9999   STRIPE_API_BASE_URL (yours)');
      expect(banner).toContain(`  Adyen          ${fakes.env.ADYEN_CHECKOUT_BASE_URL}   ADYEN_CHECKOUT_BASE_URL`);
      expect(banner.match(/curl -s http:\/\/localhost:3000\/api\/connectors -H "Authorization: Bearer sk_test_demo"/g)).toHaveLength(2);
      expect(banner).not.toContain('"provider":"stripe"');
      // The fakes answer on the URLs given to the connectors.
      const adyen = await fetch(`${fakes.env.ADYEN_CHECKOUT_BASE_URL}/v72/paymentMethods`, { method: 'POST', body: '{}' });
      expect(adyen.status).toBe(401);
    } finally {
      await fakes.close();
    }
  });
});
