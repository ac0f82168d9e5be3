import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFunctionSpec, httpFunctions } from '../../functions/catalog.ts';
import { handler as acceptDispute } from '../../functions/disputes/accept.ts';
import { handler as disputeEvidence } from '../../functions/disputes/evidence.ts';
import { handler as createInvoice } from '../../functions/invoices/create.ts';
import { handler as markInvoicePaid } from '../../functions/invoices/mark-paid.ts';
import { handler as sendInvoice } from '../../functions/invoices/send.ts';
import { handler as cancelSubscription } from '../../functions/subscriptions/cancel.ts';
import { handler as createSubscription } from '../../functions/subscriptions/create.ts';
import { handler as pauseSubscription } from '../../functions/subscriptions/pause.ts';
import { handler as resumeSubscription } from '../../functions/subscriptions/resume.ts';
import { handler as openTestDispute } from '../../functions/test-helpers/dispute.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { loadHandler } from '../../infra/local/lambda.ts';
import { buildOpenApi, type OpenApiDocument, operationIdOf } from '../../infra/openapi/document.ts';
import { EVENT_TYPES, eventPayload } from '../../shared/model/events.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { listEvents } from '../../shared/store/events.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { payloadChecker } from '../support/openapi.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';
import { startTestGateway } from '../support/runtime.ts';

/** The error statuses each endpoint documents beside 400/401/429/500, as the API contract lists them. */
const SPEC_ERRORS: Record<string, number[]> = {
  'POST /api/auth/request-otp': [400, 429],
  'POST /api/auth/verify-otp': [400, 401],
  'POST /api/payments/create': [400, 401, 402, 429, 500],
  'POST /api/api-keys/{id}/roll': [400, 401, 403, 404],
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

/** The calls that make events, as a merchant makes them (payments: test/support/payments.ts). */
const call = (handler: Parameters<typeof invokeHttp>[0], method: string, path: string, key: string, body?: unknown) =>
  invokeHttp(handler, apiEvent({ method, path, headers: bearer(key), body }));

/** A captured payment of the sandbox (test mode). */
const capturedPayment = async (key: string): Promise<string> => {
  const { id } = (await payments.create(key, paymentBody())).body as { id: string };
  expect((await payments.capture(key, id)).status).toBe(200);
  return id;
};

/** A dispute the sandbox opens on a new captured payment. */
const openedDispute = async (key: string): Promise<string> => {
  const payment = await capturedPayment(key);
  const opened = await call(openTestDispute, 'POST', `/api/test_helpers/payments/${payment}/dispute`, key, {});
  return (opened.body as { dispute: { id: string } }).dispute.id;
};

/** Redocly's recommended rules plus `operation-description` as an error. */
async function redoclyLint(document: OpenApiDocument): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'], rules: { 'operation-description': 'error' } });
  return lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
}

const describeProblem = (p: NormalizedProblem) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location.map((l) => l.pointer).join(', ')})`;

describe('the OpenAPI document', () => {
  let document: OpenApiDocument;
  beforeAll(async () => {
    document = await buildOpenApi();
  });

  it("passes Redocly's recommended rules, with a description required on every operation: no errors, no warnings but the accepted ones", async () => {
    const problems = await redoclyLint(document);
    const unexpected = problems.filter((p) => p.severity === 'error' || !(p.ruleId in ACCEPTED_WARNINGS));
    expect(unexpected.map(describeProblem)).toEqual([]);
  });

  it('fails the lint when an operation has no description', async () => {
    const { description: _dropped, ...capture } = document.paths['/api/payments/{id}/capture']!.post!;
    const paths = { ...document.paths, '/api/payments/{id}/capture': { post: capture } };
    const problems = await redoclyLint({ ...document, paths });
    expect(problems.filter((p) => p.ruleId === 'operation-description').map((p) => p.location[0]?.pointer)).toEqual([
      '#/paths/~1api~1payments~1{id}~1capture/post/description',
    ]);
  });

  it('describes every HTTP function of the catalog, and nothing else', () => {
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(missingFrom(document)).toEqual([]);
    expect(operations).toHaveLength(httpFunctions().length);
  });

  it('notices a catalog function missing from a document', () => {
    const { '/api/payments/{id}': _dropped, ...paths } = document.paths;
    expect(missingFrom({ ...document, paths })).toEqual(['payments/get', 'payments/update']);
  });

  it.each(Object.entries(SPEC_ERRORS))("documents the spec's error statuses of %s", (route, errors) => {
    expect(statusesOf(document, route)).toEqual(expect.arrayContaining([200, ...errors]));
  });

  it.each(httpFunctions().map((f) => [f.name, f] as const))(
    'documents what %s needs: auth, its permission, 401, 403, 404, the success body',
    (_name, spec) => {
      const operation = operationOf(document, spec)!;
      const statuses = Object.keys(operation.responses).map(Number);
      expect(operation.security).toEqual(spec.trigger.auth === 'public' ? [] : undefined);
      if (spec.trigger.auth !== 'public') expect(statuses).toEqual(expect.arrayContaining([401, 403]));
      expect(operation['x-permission']).toBe(spec.trigger.permission ?? undefined);
      if (spec.trigger.path.includes('{id}')) expect(statuses).toContain(404);
      expect(operation.responses['200']!.content).toBeDefined();
    },
  );

  it.each(httpFunctions().map((f) => [f.name, f] as const))('%s: the request example is a body the handler accepts', async (_name, spec) => {
    const documented = operationOf(document, spec)!.requestBody as { content: Record<string, { example: unknown }> } | undefined;
    const { body, form } = ((await loadHandler(spec.name)) as unknown as HttpHandler).options;
    expect(documented === undefined).toBe(body === undefined);
    const type = form ? 'application/x-www-form-urlencoded' : 'application/json';
    if (body) expect(v.safeParse(body, documented!.content[type]!.example).issues).toBeUndefined();
  });

  describe('webhooks', () => {
    it('has a webhook for every event type, and nothing else', () => {
      expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    });

    it('describes the bodies of the events the API makes, closed-world', async () => {
      // Prepare: a merchant's payments, disputes, a subscription and an invoice, each through its endpoint
      const { apiKey, merchantId, customerId } = await newMerchant();
      const refunded = await capturedPayment(apiKey);
      expect((await payments.refund(apiKey, refunded, { amount: 500 })).status).toBe(200);
      const voided = (await payments.create(apiKey, paymentBody())).body as { id: string };
      expect((await payments.void(apiKey, voided.id)).status).toBe(200);
      expect((await payments.create(apiKey, paymentBody({}, CARDS.genericDecline))).status).toBe(402);
      const reviewed = await openedDispute(apiKey);
      expect((await call(disputeEvidence, 'POST', `/api/disputes/${reviewed}/evidence`, apiKey, { product_description: 'A mug' })).status).toBe(200);
      const accepted = await openedDispute(apiKey);
      expect((await call(acceptDispute, 'POST', `/api/disputes/${accepted}/accept`, apiKey)).status).toBe(200);
      const subscription = await call(createSubscription, 'POST', '/api/subscriptions', apiKey, {
        customer_id: customerId,
        plan: 'Pro monthly',
        amount: 2900,
        currency: 'eur',
        interval: 'month',
      });
      const subscriptionId = (subscription.body as { id: string }).id;
      for (const [handler, move] of [
        [pauseSubscription, 'pause'],
        [resumeSubscription, 'resume'],
        [cancelSubscription, 'cancel'],
      ] as const)
        expect((await call(handler, 'PUT', `/api/subscriptions/${subscriptionId}/${move}`, apiKey)).status).toBe(200);
      const invoice = await call(createInvoice, 'POST', '/api/invoices', apiKey, {
        customer_id: customerId,
        items: [{ name: 'Consulting (hours)', amount: 1999, quantity: 3 }],
        currency: 'usd',
        due_date: '2030-01-31',
      });
      const invoiceId = (invoice.body as { id: string }).id;
      expect((await call(sendInvoice, 'PUT', `/api/invoices/${invoiceId}/send`, apiKey, { channel: 'email' })).status).toBe(200);
      expect((await call(markInvoicePaid, 'PUT', `/api/invoices/${invoiceId}/mark-paid`, apiKey)).status).toBe(200);

      // Act: the bodies their events are delivered with
      const events = (await listEvents(testOwner(merchantId), {}, { limit: 100 })).data;
      const check = payloadChecker(document);

      // Assert
      expect(new Set(events.map((e) => e.type))).toEqual(
        new Set([
          ...['payment.succeeded', 'payment.failed', 'payment.captured', 'payment.voided', 'payment.refunded'],
          ...['dispute.created', 'dispute.updated', 'dispute.closed'],
          ...['subscription.created', 'subscription.paused', 'subscription.resumed', 'subscription.cancelled'],
          ...['invoice.created', 'invoice.sent', 'invoice.paid'],
        ]),
      );
      for (const event of events) check(eventPayload(event));
      // and the check is not vacuous: an object without its sequence, or with a field its schema lacks, fails
      const refund = JSON.parse(eventPayload(events.find((e) => e.type === 'payment.refunded')!)) as { data: { object: Record<string, unknown> } };
      const { sequence: _sequence, ...unsequenced } = refund.data.object;
      expect(() => check(JSON.stringify({ ...refund, data: { object: unsequenced } }))).toThrow(/must have required property 'sequence'/);
      expect(() => check(JSON.stringify({ ...refund, data: { object: { ...refund.data.object, fee: 30 } } }))).toThrow(/additional properties: fee/);
    });
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
