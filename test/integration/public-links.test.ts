import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.ts';
import { config } from '../../shared/config.ts';
import { baseUrlOf } from '../../shared/http/request-context.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { apiEvent } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { rawRequest } from '../support/raw-http.ts';
import { startTestGateway } from '../support/runtime.ts';

/**
 * Links the API hands out (`pdf_url`, the invoice e-mail) point at the API itself: its configured public URL, else
 * the domain API Gateway served the request on. Headers a client controls (Host, X-Forwarded-*) never reach them.
 */
const FORGED: ReadonlyArray<readonly [string, string]> = [
  ['Host', 'evil.example'],
  ['X-Forwarded-Proto', 'https'],
  ['X-Forwarded-Host', 'evil.example'],
];

const invoiceBody = (customerId: string) =>
  JSON.stringify({
    customer_id: customerId,
    items: [{ name: 'Consulting', amount: 1999, quantity: 1 }],
    currency: 'usd',
    due_date: '2026-12-31',
    tax_rate: 0,
  });

describe('links in invoices', () => {
  let gateway: Gateway;
  const configured = config.PUBLIC_API_URL;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());
  afterEach(() => {
    config.PUBLIC_API_URL = configured;
  });

  const call = (method: 'POST' | 'PUT', apiKey: string, path: string, body: string) =>
    rawRequest(gateway.url, {
      method,
      path,
      headers: [...FORGED, ['Authorization', bearer(apiKey).Authorization], ['Content-Type', 'application/json']],
      body,
    });

  it('builds pdf_url and the e-mailed link on the gateway the API runs on, whatever Host and X-Forwarded-Proto say', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    // Act
    const created = await call('POST', apiKey, '/api/invoices', invoiceBody(customerId));
    const id = (created.json as { id: string }).id;
    const sent = await call('PUT', apiKey, `/api/invoices/${id}/send`, JSON.stringify({ channel: 'email' }));
    const pdfUrl = (sent.json as { pdf_url: string }).pdf_url;
    const pdf = await fetch(pdfUrl);
    // Assess
    expect(created.status).toBe(200);
    expect((created.json as { pdf_url: string }).pdf_url.startsWith(`${gateway.url}/api/invoices/${id}/pdf?`)).toBe(true);
    expect(sent.status).toBe(200);
    expect(pdfUrl.startsWith(`${gateway.url}/api/invoices/${id}/pdf?`)).toBe(true);
    const mail = listLocalOutbox().find((m) => m.channel === 'email' && m.text.includes(`/api/invoices/${id}/pdf`));
    expect(mail?.text).toContain(pdfUrl);
    expect(mail?.text).not.toContain('evil.example');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
  });

  it('serves the PDF link with what a mail link tracker appends (only the merchant API refuses unknown parameters)', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const created = await call('POST', apiKey, '/api/invoices', invoiceBody(customerId));
    const pdfUrl = (created.json as { pdf_url: string }).pdf_url;
    // Act
    const tracked = await fetch(`${pdfUrl}&utm_source=newsletter&utm_medium=email`);
    // Assess
    expect(tracked.status).toBe(200);
    expect(tracked.headers.get('content-type')).toBe('application/pdf');
  });

  it('uses PUBLIC_API_URL when it is configured', async () => {
    // Prepare
    config.PUBLIC_API_URL = 'https://api.shop.example';
    const { apiKey, customerId } = await newMerchant();
    // Act
    const created = await call('POST', apiKey, '/api/invoices', invoiceBody(customerId));
    // Assess
    expect(created.status).toBe(200);
    expect((created.json as { pdf_url: string }).pdf_url).toMatch(/^https:\/\/api\.shop\.example\/api\/invoices\/inv_[0-9a-z]{26}\/pdf\?/);
  });
});

describe('the base URL in AWS (no PUBLIC_API_URL)', () => {
  const saved = { url: config.PUBLIC_API_URL, env: config.APP_ENV };
  beforeAll(() => {
    config.PUBLIC_API_URL = undefined;
    config.APP_ENV = 'aws';
  });
  afterAll(() => {
    config.PUBLIC_API_URL = saved.url;
    config.APP_ENV = saved.env;
  });

  const awsEvent = (domainName: string, path: string) => {
    const event = apiEvent({ method: 'GET', path: '/api/invoices', headers: { Host: 'evil.example', 'X-Forwarded-Proto': 'http' } });
    return { ...event, requestContext: { ...event.requestContext, domainName, stage: 'prod', path } };
  };

  it('is https on the execute-api domain with its stage, never the Host header', () => {
    const url = baseUrlOf(awsEvent('abc123.execute-api.eu-west-1.amazonaws.com', '/prod/api/invoices'));
    expect(url).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/prod');
  });

  it('is https on a custom domain without the stage (the base path mapping removes it)', () => {
    const url = baseUrlOf(awsEvent('api.shop.example', '/api/invoices'));
    expect(url).toBe('https://api.shop.example');
  });
});
