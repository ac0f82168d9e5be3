import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AppError, InvalidState, NotFound } from '../../../shared/domain/errors.ts';
import { http } from '../../../shared/http/index.ts';
import { apiEvent, invokeHttp } from '../../support/lambda.ts';

const Body = v.object({ amount: v.pipe(v.number(), v.integer(), v.minValue(1)) });

describe('the HTTP chain', () => {
  it('hands the handler the validated body and answers 200 JSON with a Request-Id', async () => {
    const handler = http({ auth: 'public', body: Body }, async ({ body, requestId }) => ({ doubled: body.amount * 2, requestId }));
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x', body: { amount: 21, ignored: true } }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ doubled: 42, requestId: res.headers['request-id'] });
  });

  it('renders a typed error in the documented shape', async () => {
    const handler = http({ auth: 'public' }, async () => {
      throw new InvalidState('amount');
    });
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { type: 'invalid_request_error', code: 'invalid_state', message: 'Invalid request body', param: 'amount', request_id: res.headers['request-id'] },
    });
  });

  it('turns any other error into a bare 500 that leaks nothing', async () => {
    const handler = http({ auth: 'public' }, async () => {
      throw new Error('connect ECONNREFUSED 10.0.3.7:5432 password=hunter2');
    });
    const res = await invokeHttp(handler, apiEvent({ method: 'GET', path: '/x' }));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { type: 'api_error', code: 'internal_error', message: 'Internal server error', request_id: res.headers['request-id'] } });
    expect(res.rawBody).not.toMatch(/hunter2|ECONNREFUSED|at .*\.ts/);
  });

  it('keeps a typed error’s own status and headers', async () => {
    const handler = http({ auth: 'public' }, async () => {
      throw new AppError(429, 'rate_limit_error', 'rate_limit_exceeded', 'Rate limit exceeded (100/min)', {}, { 'Retry-After': '7' });
    });
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x' }));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
  });

  it('answers 404 for a path parameter that is not an id of the declared entity, before the handler runs', async () => {
    let ran = false;
    const handler = http({ auth: 'public', params: { id: 'payment' } }, async () => {
      ran = true;
      throw new NotFound();
    });
    const res = await invokeHttp(handler, apiEvent({ method: 'GET', path: '/x/cus_1', pathParameters: { id: 'cus_1' } }));
    expect(res.status).toBe(404);
    expect(ran).toBe(false);
  });

  it('checks credentials before reading the body', async () => {
    const handler = http({ auth: 'merchant', body: Body }, async () => ({}));
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x', body: '{not json', headers: { 'Content-Type': 'application/json' } }));
    expect(res.status).toBe(401);
  });
});

describe('deeply nested bodies', () => {
  it('refuses a body nested deeper than the limit with 400 invalid_body, without a key too', async () => {
    // Prepare
    const handler = http({ auth: 'public', body: Body }, async ({ body }) => body);
    const deep = `{"amount":1,"x":${'['.repeat(65)}${']'.repeat(65)}}`;
    // Act
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x', body: deep, headers: { 'Content-Type': 'application/json' } }));
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
  });

  it('does not count brackets inside strings, escaped quotes included', async () => {
    // Prepare
    const handler = http({ auth: 'public', body: Body }, async ({ body }) => body);
    const text = JSON.stringify({ amount: 3, note: `\\"${'{['.repeat(500)}` });
    // Act
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x', body: text, headers: { 'Content-Type': 'application/json' } }));
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ amount: 3 });
  });
});
