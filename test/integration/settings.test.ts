import { describe, expect, it } from 'vitest';
import { handler as getSettings } from '../../functions/settings/get.ts';
import { handler as updateSettings } from '../../functions/settings/update.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { createApiKey } from '../../shared/domain/api-keys.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';

const read = (headers: Record<string, string>) => invokeHttp(getSettings, apiEvent({ method: 'GET', path: '/api/settings', headers }));
const update = (headers: Record<string, string>, body: unknown) =>
  invokeHttp(updateSettings, apiEvent({ method: 'PUT', path: '/api/settings', headers, body }));

describe('settings', () => {
  it('has no checkout origin until one is set', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await read(bearer(apiKey));
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'settings',
      livemode: false,
      checkout_origins: [],
      business_name: expect.stringMatching(/^merchant-.+@example\.test$/),
      brand_color: null,
      support_email: null,
      updated_at: null,
    });
  });

  it('stores checkout origins as browsers send them: lowercase, no default port, no trailing slash, once each', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const origins = [
      'HTTPS://Shop.Example:443/',
      'https://shop.example',
      'http://localhost:3001',
      'https://pay.shop.example:8443',
      'http://[::1]:8080',
    ];
    // Act
    const put = await update(bearer(apiKey), { checkout_origins: origins });
    const got = await read(bearer(apiKey));
    // Assess
    const expected = ['https://shop.example', 'http://localhost:3001', 'https://pay.shop.example:8443', 'http://[::1]:8080'];
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ object: 'settings', livemode: false, checkout_origins: expected, updated_at: expect.any(String) });
    expect(got.body).toEqual(put.body);
  });

  it.each([
    ['a path', 'https://shop.example/checkout'],
    ['a query', 'https://shop.example?x=1'],
    ['plain http on a public host', 'http://shop.example'],
    ['a wildcard', 'https://*.shop.example'],
    ['another scheme', 'ftp://shop.example'],
    ['credentials', 'https://user@shop.example'],
    ['no host', 'https://'],
  ])('refuses an origin with %s, naming it, and keeps the origins it had', async (_what, origin) => {
    // Prepare
    const { apiKey } = await newMerchant();
    await update(bearer(apiKey), { checkout_origins: ['https://shop.example'] });
    // Act
    const res = await update(bearer(apiKey), { checkout_origins: ['https://ok.example', origin] });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'checkout_origins.1' });
    expect(res.body.error.message).toBe(
      'Invalid request body: checkout_origins.1 must be an origin: https:// then a host and an optional port, no path (http:// only for localhost, 127.0.0.1 or [::1])',
    );
    expect((await read(bearer(apiKey))).body.checkout_origins).toEqual(['https://shop.example']);
  });

  it('takes at most 20 origins', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const origins = Array.from({ length: 21 }, (_, i) => `https://shop${i}.example`);
    // Act
    const res = await update(bearer(apiKey), { checkout_origins: origins });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'checkout_origins' });
    expect(res.body.error.message).toMatch(/^Invalid request body: checkout_origins /);
  });

  it('keeps test and live settings apart', async () => {
    // Prepare: a session acts in test mode, or in live mode with Livemode: true
    const { merchantId, apiKey } = await newMerchant();
    const session = await sessionOf(merchantId);
    // Act
    await update(bearer(apiKey), { checkout_origins: ['https://test-shop.example'] });
    await update({ ...bearer(session), Livemode: 'true' }, { checkout_origins: ['https://shop.example'] });
    // Assess
    expect((await read(bearer(session))).body).toMatchObject({ livemode: false, checkout_origins: ['https://test-shop.example'] });
    expect((await read({ ...bearer(session), Livemode: 'true' })).body).toMatchObject({ livemode: true, checkout_origins: ['https://shop.example'] });
  });

  it('answers 401 without a credential', async () => {
    const res = await read({});
    expect(res.status).toBe(401);
  });
});

describe('branding', () => {
  it('sets the business name, colour and support e-mail, the same in both modes, and clears the optional ones with null', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const session = await sessionOf(merchantId);
    // Act
    const put = await update(bearer(apiKey), { business_name: '  Acme Tees ', brand_color: '#0F766E', support_email: 'Help@Acme.example' });
    const live = await read({ ...bearer(session), Livemode: 'true' });
    const cleared = await update(bearer(apiKey), { brand_color: null, support_email: null });
    // Assess
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ business_name: 'Acme Tees', brand_color: '#0f766e', support_email: 'help@acme.example', checkout_origins: [] });
    expect(live.body).toMatchObject({ livemode: true, business_name: 'Acme Tees', brand_color: '#0f766e', support_email: 'help@acme.example' });
    expect(cleared.body).toMatchObject({ business_name: 'Acme Tees', brand_color: null, support_email: null });
    expect((await read(bearer(apiKey))).body).toEqual(cleared.body);
  });

  it.each([
    ['brand_color', 'teal', 'Invalid request body: brand_color must be a colour as #rrggbb'],
    ['brand_color', '#12345', 'Invalid request body: brand_color must be a colour as #rrggbb'],
    ['business_name', '   ', 'Invalid request body: business_name must be a name of 1 to 100 characters'],
    ['business_name', 'x'.repeat(101), 'Invalid request body: business_name must be a name of 1 to 100 characters'],
    ['support_email', 'not an e-mail', undefined],
  ])('refuses a bad %s (%j), naming it, and changes nothing', async (param, value, message) => {
    // Prepare
    const { apiKey } = await newMerchant();
    await update(bearer(apiKey), { business_name: 'Acme Tees' });
    // Act
    const res = await update(bearer(apiKey), { [param]: value });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param });
    if (message) expect(res.body.error.message).toBe(message);
    expect((await read(bearer(apiKey))).body).toMatchObject({ business_name: 'Acme Tees', brand_color: null, support_email: null });
  });

  it('is changed with settings:write and read with settings:read, as the other settings', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const { key: reader } = await createApiKey(merchantId, { name: 'r', mode: 'test', type: 'restricted', permissions: { settings: 'read' } });
    const { key: payments } = await createApiKey(merchantId, { name: 'p', mode: 'test', type: 'restricted', permissions: { payments: 'write' } });
    const analyst = await sessionOf(merchantId, 'analyst');
    await update(bearer(apiKey), { business_name: 'Acme Tees' });
    // Act
    const readByReader = await read(bearer(reader!));
    const writtenByReader = await update(bearer(reader!), { business_name: 'Other' });
    const readByPayments = await read(bearer(payments!));
    const writtenByAnalyst = await update(bearer(analyst), { brand_color: '#000000' });
    // Assess
    expect(readByReader.body.business_name).toBe('Acme Tees');
    expect(writtenByReader.status).toBe(403);
    expect(writtenByReader.body.error.message).toBe('Permission denied: this key lacks settings:write');
    expect(readByPayments.status).toBe(403);
    expect(writtenByAnalyst.status).toBe(403);
    expect((await read(bearer(apiKey))).body).toMatchObject({ business_name: 'Acme Tees', brand_color: null });
  });
});
