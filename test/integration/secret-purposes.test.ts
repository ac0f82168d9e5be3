import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/*
 * A function gets only the secrets its catalog entry names (shared/secret-purposes.ts); reading another fails loudly.
 * This file's process plays a function given every secret but the provider-credentials one (as an invoice page's or a
 * sign-in function's is in AWS): the variable is gone before any module reads its configuration, so every project
 * module is imported below, after it.
 */
delete process.env.CREDENTIALS_SECRET;
delete process.env.CREDENTIALS_SECRET_ARN;

const { config } = await import('../../shared/config.ts');
const { logger } = await import('../../shared/logger.ts');
const { handler: createConnector } = await import('../../functions/connectors/create.ts');
const { handler: listConnectors } = await import('../../functions/connectors/list.ts');
const { handler: configureWebhook } = await import('../../functions/webhooks/configure.ts');
const { startProviderFakes } = await import('../../infra/local/fakes/index.ts');
const { apiEvent, invokeHttp } = await import('../support/lambda.ts');
const { bearer, newMerchant } = await import('../support/merchant.ts');

let fakes: Awaited<ReturnType<typeof startProviderFakes>>;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());

describe('a function without the provider-credentials secret', () => {
  it('cannot seal a connector account’s credentials: the request fails, says why in the log, and stores nothing', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const errors = vi.spyOn(logger, 'error');
    // Act
    const res = await invokeHttp(
      createConnector,
      apiEvent({
        method: 'POST',
        path: '/api/connectors',
        headers: bearer(apiKey),
        body: { provider: 'stripe', credentials: fakes.credentials.stripe },
      }),
    );
    // Assess
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain(String(Object.values(fakes.credentials.stripe)[0]));
    const logged = errors.mock.calls.map(([, error]) => (error instanceof Error ? error.message : ''));
    expect(logged).toContain('This function may not use the credentials secret (no CREDENTIALS_SECRET or CREDENTIALS_SECRET_ARN)');
    const listed = await invokeHttp(listConnectors, apiEvent({ method: 'GET', path: '/api/connectors', headers: bearer(apiKey) }));
    expect(listed.body.data).toEqual([]);
  });

  it('still reads the secrets it was given: a webhook endpoint’s signing secret is sealed and answered once', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await invokeHttp(
      configureWebhook,
      apiEvent({
        method: 'POST',
        path: '/api/webhooks/configure',
        headers: { ...bearer(apiKey), 'Idempotency-Key': 'configure-once' },
        body: { url: 'http://127.0.0.1:9/hooks', events: ['payment.succeeded'] },
      }),
    );
    // Assess
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
  });
});
