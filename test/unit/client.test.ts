import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient } from '../../client/src/index.ts';
import { listen } from '../../infra/local/fakes/listen.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** A server that answers each request with the next scripted answer, recording what it received. */
function scriptedServer() {
  const seen: Seen[] = [];
  let answers: { status: number; headers?: Record<string, string>; body?: unknown }[] = [];
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      const answer = answers.shift() ?? { status: 500 };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      const body = answer.body ?? { error: { code: 'scripted', message: `scripted ${answer.status}` } };
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  return { server, seen, script: (next: typeof answers) => ((answers = next), seen.splice(0)) };
}

describe('the client package', () => {
  const { server, seen, script } = scriptedServer();
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = `http://127.0.0.1:${await listen(server)}`;
  });
  afterAll(() => server.close());

  const card = { type: 'card' as const, card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' } };
  const retried: { status: number | string; waitMs: number }[] = [];
  const client = () => createClient({ baseUrl, apiKey: 'sk_test_k', backoffMs: 1, onRetry: (r) => retried.push(r) });

  it('retries a 429 after its Retry-After, and a 409 and a 503, with the same Idempotency-Key on every try', async () => {
    // Prepare
    script([
      { status: 429, headers: { 'Retry-After': '1' } },
      { status: 409, headers: { 'Retry-After': '0' } },
      { status: 503 },
      { status: 200, body: { id: 'pay_1', status: 'succeeded' } },
    ]);
    retried.length = 0;
    // Act
    const payment = await client().POST('/api/payments/create', { body: { amount: 100, currency: 'usd', payment_method: card } });
    // Assess
    expect(payment).toEqual({ id: 'pay_1', status: 'succeeded' });
    expect(seen).toHaveLength(4);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(retried.map((r) => r.status)).toEqual([429, 409, 503]);
    expect(retried[0]!.waitMs).toBe(1000);
    expect(retried[1]!.waitMs).toBe(0);
    expect(seen[0]!.headers.authorization).toBe('Bearer sk_test_k');
  });

  it('sends the caller’s Idempotency-Key, and a new one for the next call', async () => {
    script([
      { status: 200, body: { id: 'pay_1' } },
      { status: 200, body: { id: 'pay_2' } },
    ]);
    await client().POST('/api/payments/create', { body: { amount: 100, currency: 'usd', payment_method: card }, idempotencyKey: 'order-42' });
    await client().POST('/api/payments/create', { body: { amount: 100, currency: 'usd', payment_method: card } });
    expect(seen[0]!.headers['idempotency-key']).toBe('order-42');
    expect(seen[1]!.headers['idempotency-key']).not.toBe('order-42');
  });

  it('never retries another 4XX: the error body is thrown once', async () => {
    script([{ status: 400, body: { error: { type: 'invalid_request_error', code: 'parameter_invalid', message: 'Invalid request body: amount' } } }]);
    const failed = await client()
      .POST('/api/payments/create', { body: { amount: 100, currency: 'usd', payment_method: card } })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ status: 400, code: 'parameter_invalid', message: 'Invalid request body: amount' });
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxAttempts with the last answer', async () => {
    script([{ status: 503 }, { status: 503 }, { status: 502 }]);
    const failed = await createClient({ baseUrl, apiKey: 'k', backoffMs: 1, maxAttempts: 3 })
      .GET('/api/payments/{id}', { params: { id: 'pay_x' } })
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ status: 502 });
    expect(seen.map((s) => s.url)).toEqual(['/api/payments/pay_x', '/api/payments/pay_x', '/api/payments/pay_x']);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('lists every page with starting_after the last id until has_more is false', async () => {
    script([
      { status: 200, body: { data: [{ id: 'cus_3' }, { id: 'cus_2' }], has_more: true } },
      { status: 200, body: { data: [{ id: 'cus_1' }], has_more: false } },
    ]);
    const ids: string[] = [];
    for await (const customer of client().listAll('/api/customers', { query: { limit: 2 } })) ids.push(customer.id);
    expect(ids).toEqual(['cus_3', 'cus_2', 'cus_1']);
    expect(seen.map((s) => s.url)).toEqual(['/api/customers?limit=2', '/api/customers?limit=2&starting_after=cus_2']);
  });

  it('exports the audit log of a time range as its entries, one per JSON line', async () => {
    const entries = [
      { id: 'aud_2', object: 'audit_entry', action: 'settings.update' },
      { id: 'aud_1', object: 'audit_entry', action: 'webhooks.configure' },
    ];
    script([{ status: 200, headers: { 'content-type': 'application/x-ndjson' }, body: entries.map((e) => `${JSON.stringify(e)}\n`).join('') }]);
    const got = await client().exportAuditLog({ created_after: '2026-01-01T00:00:00.000Z' });
    expect(got).toEqual(entries);
    expect(seen.map((s) => s.url)).toEqual(['/api/audit_log/export?created_after=2026-01-01T00%3A00%3A00.000Z']);
  });
});
