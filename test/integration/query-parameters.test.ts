import { describe, expect, it } from 'vitest';
import { handlerFile, httpFunctions } from '../../functions/catalog.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';

const load = async (name: string) => ((await import(/* @vite-ignore */ `../../${handlerFile(name)}`)) as { handler: HttpHandler }).handler;

/** Every merchant GET without a path id: the lists, balance and analytics (docs/api.md "Requests"). */
const collections = httpFunctions()
  .filter((f) => f.trigger.method === 'GET' && f.trigger.auth === 'merchant' && !f.trigger.path.includes('{'))
  .map((f) => [f.trigger.path, f.name] as const);

describe('unknown query parameters', () => {
  it('covers the lists the catalog has, balance and analytics', () => {
    const paths = collections.map(([path]) => path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/payments/list',
        '/api/customers',
        '/api/refunds',
        '/api/invoices',
        '/api/subscriptions',
        '/api/webhooks/events',
        '/api/disputes',
        '/api/settlements',
        '/api/balance',
        '/api/analytics',
      ]),
    );
  });

  it.each(collections)('GET %s?stauts=failed answers 400 parameter_unknown naming stauts', async (path, name) => {
    // Prepare: the owner's session, which reads every group (a secret key reads neither the team nor the audit log)
    const { merchantId } = await newMerchant();
    const owner = await sessionOf(merchantId);
    const handler = await load(name);
    // Act
    const res = await invokeHttp(handler, apiEvent({ path: `${path}?stauts=failed`, headers: bearer(owner) }));
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      type: 'invalid_request_error',
      code: 'parameter_unknown',
      param: 'stauts',
      message: expect.stringMatching(/^Invalid request body: unknown query parameter stauts \(this endpoint takes .+\)$/),
      request_id: res.headers['request-id'],
    });
  });

  it.each(collections)('GET %s still answers 200 without parameters, or only those it requires', async (path, name) => {
    // Prepare: the owner's session, which reads every group
    const { merchantId, customerId } = await newMerchant();
    const owner = await sessionOf(merchantId);
    const handler = await load(name);
    const required: Record<string, string> = path === '/api/payment_methods' ? { customer_id: customerId } : {};
    // Act
    const res = await invokeHttp(handler, apiEvent({ path, query: required, headers: bearer(owner) }));
    // Assess
    expect(res.status).toBe(200);
  });

  it('keeps the payments filters working, bracketed ones included, and refuses their misspellings', async () => {
    // Prepare
    const { apiKey } = await newMerchant({ payments: true });
    const handler = await load('payments/list');
    const list = (query: string) => invokeHttp(handler, apiEvent({ path: `/api/payments/list?${query}`, headers: bearer(apiKey) }));
    // Act
    const known = await list('status=failed&created[gte]=2020-01-01&created[lte]=2100-01-01&limit=5');
    const all = await list('limit=100');
    const misspelt = await list('created[gt]=2020-01-01');
    // Assess
    expect(known.status).toBe(200);
    expect(known.body.data).toEqual([]);
    expect(all.body.data.length).toBeGreaterThan(0);
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error).toMatchObject({ code: 'parameter_unknown', param: 'created[gt]' });
  });

  it('answers 400 parameter_unknown on an endpoint that takes no query (a payment by id)', async () => {
    // Prepare
    const { apiKey } = await newMerchant({ payments: true });
    const listed = await invokeHttp(await load('payments/list'), apiEvent({ path: '/api/payments/list', headers: bearer(apiKey) }));
    const id = listed.body.data[0].id as string;
    // Act
    const res = await invokeHttp(await load('payments/get'), apiEvent({ path: `/api/payments/${id}?expand=customer`, headers: bearer(apiKey) }));
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'parameter_unknown',
      param: 'expand',
      message: 'Invalid request body: unknown query parameter expand (this endpoint takes no query parameters)',
    });
  });
});
