import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFunctionSpec, httpFunctions } from '../../functions/catalog.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { loadHandler } from '../../infra/local/lambda.ts';
import { buildOpenApi, type OpenApiDocument, operationIdOf } from '../../infra/openapi/document.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { startTestGateway } from '../support/runtime.ts';

/** The error statuses the spec's endpoint tables state (spec/payment-orchestration-api.md, "Endpoints"). */
const SPEC_ERRORS: Record<string, number[]> = {
  'POST /api/auth/request-otp': [400, 429],
  'POST /api/auth/verify-otp': [400, 401],
  'POST /api/payments/create': [400, 401, 402, 429, 500],
  'GET /api/payments/{id}': [401, 404],
  'GET /api/payments/list': [401],
  'POST /api/payments/{id}/capture': [400, 401, 404],
  'POST /api/payments/{id}/void': [401, 404],
  'POST /api/payments/{id}/refund': [400, 401, 404],
  'POST /api/subscriptions': [400, 401],
  'GET /api/subscriptions': [401],
  'PUT /api/subscriptions/{id}/pause': [401, 404],
  'PUT /api/subscriptions/{id}/resume': [401, 404],
  'PUT /api/subscriptions/{id}/cancel': [401, 404],
  'POST /api/invoices': [400, 401],
  'GET /api/invoices': [401],
  'GET /api/invoices/{id}': [401, 404],
  'PUT /api/invoices/{id}/send': [400, 401, 404],
  'PUT /api/invoices/{id}/mark-paid': [401, 404],
  'GET /api/routing/rules': [401],
  'POST /api/routing/rules': [400, 401],
  'PUT /api/routing/rules/{id}': [400, 401, 404],
  'POST /api/customers': [400, 401],
  'GET /api/customers/{id}': [401, 404],
  'PUT /api/customers/{id}': [400, 401, 404],
  'GET /api/balance': [401],
  'GET /api/settlements': [401],
  'GET /api/settlements/{id}': [401, 404],
  'GET /api/analytics': [401],
  'GET /api/analytics/revenue': [401],
  'GET /api/analytics/providers': [401],
  'POST /api/webhooks/configure': [400, 401],
  'GET /api/webhooks/events': [401],
  'POST /api/webhooks/test': [400, 401],
  'GET /api/api-keys': [401],
  'POST /api/api-keys': [400, 401],
  'PUT /api/api-keys/{id}/revoke': [401, 404],
};

/** Warnings of the recommended rules that are accepted, and why. Anything else fails. */
const ACCEPTED_WARNINGS: Record<string, string> = {
  'no-server-example.com': 'the local runtime (http://localhost:3000) is a real server of this API: `npm start`',
  'info-license': 'a private project: there is no license to state',
};

const operationOf = (document: OpenApiDocument, spec: HttpFunctionSpec) => document.paths[spec.trigger.path]?.[spec.trigger.method.toLowerCase()];

/** Catalog HTTP functions the document lacks (by path, method and operationId). */
const missingFrom = (document: OpenApiDocument): string[] =>
  httpFunctions()
    .filter((spec) => operationOf(document, spec)?.operationId !== operationIdOf(spec.name))
    .map((spec) => spec.name);

const statusesOf = (document: OpenApiDocument, route: string): number[] => {
  const [method, path] = route.split(' ') as [string, string];
  return Object.keys(document.paths[path]?.[method.toLowerCase()]?.responses ?? {}).map(Number);
};

const describeProblem = (p: NormalizedProblem) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location.map((l) => l.pointer).join(', ')})`;

describe('the OpenAPI document', () => {
  let document: OpenApiDocument;
  beforeAll(async () => {
    document = await buildOpenApi();
  });

  it("passes Redocly's recommended rules: no errors, no warnings but the accepted ones", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const unexpected = problems.filter((p) => p.severity === 'error' || !(p.ruleId in ACCEPTED_WARNINGS));
    expect(unexpected.map(describeProblem)).toEqual([]);
  });

  it('describes every HTTP function of the catalog, and nothing else', () => {
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(missingFrom(document)).toEqual([]);
    expect(operations).toHaveLength(httpFunctions().length);
  });

  it('notices a catalog function missing from a document', () => {
    const { '/api/payments/{id}': _dropped, ...paths } = document.paths;
    expect(missingFrom({ ...document, paths })).toEqual(['payments/get']);
  });

  it.each(Object.entries(SPEC_ERRORS))("documents the spec's error statuses of %s", (route, errors) => {
    expect(statusesOf(document, route)).toEqual(expect.arrayContaining([200, ...errors]));
  });

  it.each(httpFunctions().map((f) => [f.name, f] as const))('documents what %s needs: auth, 401, 404, the success body', (_name, spec) => {
    const operation = operationOf(document, spec)!;
    const statuses = Object.keys(operation.responses).map(Number);
    expect(operation.security).toEqual(spec.trigger.auth === 'public' ? [] : undefined);
    if (spec.trigger.auth === 'merchant') expect(statuses).toContain(401);
    if (spec.trigger.path.includes('{id}')) expect(statuses).toContain(404);
    expect(operation.responses['200']!.content).toBeDefined();
  });

  it.each(httpFunctions().map((f) => [f.name, f] as const))('%s: the request example is a body the handler accepts', async (_name, spec) => {
    const documented = operationOf(document, spec)!.requestBody as { content: { 'application/json': { example: unknown } } } | undefined;
    const { body } = ((await loadHandler(spec.name)) as unknown as HttpHandler).options;
    expect(documented === undefined).toBe(body === undefined);
    if (body) expect(v.safeParse(body, documented!.content['application/json'].example).issues).toBeUndefined();
  });

  describe('served by the local gateway', () => {
    let gateway: Gateway;
    beforeAll(async () => {
      gateway = await startTestGateway();
    });
    afterAll(() => gateway.close());

    it('at GET /api/openapi.json, with the gateway as its server', async () => {
      const res = await fetch(`${gateway.url}/api/openapi.json`);
      const served = (await res.json()) as OpenApiDocument;
      expect(res.status).toBe(200);
      expect(served.servers).toEqual([{ url: gateway.url, description: 'This local runtime' }]);
      expect({ ...served, servers: document.servers }).toEqual(document);
    });

    it('as a Swagger UI page at GET /docs, with its assets', async () => {
      const page = await fetch(`${gateway.url}/docs`);
      const html = await page.text();
      const bundle = await fetch(`${gateway.url}/docs/swagger-ui-bundle.js`);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(html).toContain("url: '/api/openapi.json'");
      expect(bundle.status).toBe(200);
      expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    });
  });
});
