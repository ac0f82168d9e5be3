import { describe, expect, it } from 'vitest';
import { handler as cardFields } from '../../functions/hosted/card-fields.ts';
import { handler as cardFieldsScript } from '../../functions/hosted/card-fields-script.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { newMerchant } from '../support/merchant.ts';

const page = (query: Record<string, string>) =>
  invokeHttp(cardFields, apiEvent({ method: 'GET', path: '/hosted/card-fields', query, headers: { Accept: 'text/html' } }));

describe('hosted card fields pages', () => {
  it('serves the script as JavaScript with a CSP, never sniffed', async () => {
    // Act
    const res = await invokeHttp(cardFieldsScript, apiEvent({ method: 'GET', path: '/hosted/card-fields.js' }));
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.rawBody).toContain('window.CardFields = { mount }');
  });

  it('answers an unknown publishable key with a 401 page (with a CSP), not the fields', async () => {
    // Act
    const res = await page({ key: `pk_test_${'x'.repeat(43)}`, origin: 'https://shop.example' });
    // Assess
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; base-uri 'none'; form-action 'none'$/);
    expect(res.rawBody).toContain('Invalid API key: the card fields need an active publishable key (pk_…)');
    expect(res.rawBody).not.toContain('<input');
  });

  it('answers a secret key with a 400 page naming the key, and never echoes it', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await page({ key: apiKey, origin: 'https://shop.example' });
    // Assess
    expect(res.status).toBe(400);
    expect(res.rawBody).toContain('Invalid request body: key must be a publishable key (pk_test_… or pk_live_…)');
    expect(res.rawBody).not.toContain(apiKey);
  });
});
