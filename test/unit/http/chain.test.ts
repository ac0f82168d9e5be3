import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AppError, IdempotencyKeyInUse, InvalidState, NotFound, OperationInProgress } from '../../../shared/model/errors.ts';
import { http } from '../../../shared/http/index.ts';
import { validate } from '../../../shared/http/validate.ts';
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
      error: {
        type: 'invalid_request_error',
        code: 'invalid_state',
        message: 'Invalid request body',
        param: 'amount',
        request_id: res.headers['request-id'],
      },
    });
  });

  it('turns any other error into a bare 500 that leaks nothing', async () => {
    const handler = http({ auth: 'public' }, async () => {
      throw new Error('connect ECONNREFUSED 10.0.3.7:5432 password=hunter2');
    });
    const res = await invokeHttp(handler, apiEvent({ method: 'GET', path: '/x' }));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: { type: 'api_error', code: 'internal_error', message: 'Internal server error', request_id: res.headers['request-id'] },
    });
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

  it.each([
    [
      'another operation on the payment',
      new OperationInProgress(2.5),
      'invalid_request_error',
      'operation_in_progress',
      'Operation in progress: another operation on this payment is still running; retry in 3 s',
    ],
    [
      'a request with the same key',
      new IdempotencyKeyInUse(2.5),
      'idempotency_error',
      'idempotency_key_in_use',
      'Idempotency key in use: a request with this Idempotency-Key is still being processed; retry in 3 s',
    ],
  ])('answers 409 for %s, naming an Idempotency-Key only where one is involved', async (_what, error, type, code, message) => {
    // Prepare
    const handler = http({ auth: 'public' }, async () => {
      throw error;
    });
    // Act
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x' }));
    // Assess
    expect(res.status).toBe(409);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.body.error).toEqual({ type, code, message, request_id: res.headers['request-id'] });
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

  it('refuses to build an endpoint that takes a merchant credential without naming its permission', () => {
    expect(() => http({ auth: 'merchant' }, async () => ({}))).toThrow(/declares its `permission`/);
  });

  it('checks credentials before reading the body', async () => {
    const handler = http({ auth: 'merchant', permission: 'payments:write', body: Body }, async () => ({}));
    const res = await invokeHttp(
      handler,
      apiEvent({ method: 'POST', path: '/x', body: '{not json', headers: { 'Content-Type': 'application/json' } }),
    );
    expect(res.status).toBe(401);
  });
});

describe('deeply nested bodies', () => {
  it('refuses a body nested deeper than the limit with 400 parameter_invalid, without a key too', async () => {
    // Prepare
    const handler = http({ auth: 'public', body: Body }, async ({ body }) => body);
    const deep = `{"amount":1,"x":${'['.repeat(65)}${']'.repeat(65)}}`;
    // Act
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x', body: deep, headers: { 'Content-Type': 'application/json' } }));
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('parameter_invalid');
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

describe('JSON bodies', () => {
  const echo = http({ auth: 'public', body: v.object({ amount: v.optional(v.number()) }) }, async ({ body }) => body);
  const post = (body: string | undefined, headers: Record<string, string> = { 'Content-Type': 'application/json' }, base64 = false) => {
    const event = apiEvent({ method: 'POST', path: '/x', headers, body });
    if (base64 && event.body) Object.assign(event, { body: Buffer.from(event.body).toString('base64'), isBase64Encoded: true });
    return invokeHttp(echo, event);
  };

  it('reads a base64-encoded body', async () => {
    // Act
    const res = await post('{"amount":5}', undefined, true);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ amount: 5 });
  });

  it.each([
    ['an absent body', undefined, {}],
    ['an empty body without Content-Type', '', {}],
    ['a blank body', '  \n', { 'Content-Type': 'text/plain' }],
  ])('treats %s as {}', async (_, body, headers) => {
    // Act
    const res = await post(body, headers);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it.each([
    ['malformed JSON', '{"amount": ', undefined, 'invalid_json', undefined, 'Invalid request body: the body is not valid JSON'],
    [
      'a form body',
      'amount=1',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      'invalid_content_type',
      undefined,
      'Invalid request body: Content-Type must be application/json, not application/x-www-form-urlencoded',
    ],
    ['no Content-Type', '{"amount":1}', {}, 'invalid_content_type', undefined, 'Invalid request body: Content-Type must be application/json'],
    ['an array', '[1]', undefined, 'parameter_invalid', undefined, 'Invalid request body: the body must be a JSON object, not an array'],
    ['null', 'null', undefined, 'parameter_invalid', undefined, 'Invalid request body: the body must be a JSON object, not null'],
    [
      'a __proto__ key',
      '{"meta":{"__proto__":{"admin":true}}}',
      undefined,
      'parameter_invalid',
      'meta.__proto__',
      'Invalid request body: meta.__proto__ is not allowed (the key "__proto__" is reserved)',
    ],
    [
      'a body over 64 KB',
      JSON.stringify({ amount: 1, pad: 'x'.repeat(70_000) }),
      undefined,
      'body_too_large',
      undefined,
      'Invalid request body: the body is 70021 bytes; the limit is 65536 bytes (64 KB)',
    ],
  ])('answers 400 to %s, saying why', async (_, body, headers, code, param, message) => {
    // Act
    const res = await post(body, headers);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ type: 'invalid_request_error', code, message, ...(param && { param }), request_id: res.headers['request-id'] });
  });
});

describe('validation messages', () => {
  const Amount = v.object({
    amount: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(99999999)),
    mode: v.optional(v.picklist(['live', 'test'])),
    code: v.optional(
      v.pipe(
        v.string(),
        v.check((s) => s.startsWith('X'), 'a code starting with X'),
      ),
    ),
  });
  const handler = http({ auth: 'public', body: Amount }, async ({ body }) => body);

  it.each([
    [{}, 'parameter_missing', 'amount', 'Invalid request body: amount is required'],
    [{ amount: 0 }, 'parameter_invalid', 'amount', 'Invalid request body: amount must be an integer from 1 to 99999999'],
    [{ amount: 'ten' }, 'parameter_invalid', 'amount', 'Invalid request body: amount must be an integer from 1 to 99999999'],
    [{ amount: 5, mode: 'prod' }, 'parameter_invalid', 'mode', 'Invalid request body: mode must be one of: live, test'],
    [{ amount: 5, code: 'Y1' }, 'parameter_invalid', 'code', 'Invalid request body: code must be a code starting with X'],
  ])('answers %o with the field and what it must be', async (body, code, param, message) => {
    // Act
    const res = await invokeHttp(handler, apiEvent({ method: 'POST', path: '/x', body }));
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ type: 'invalid_request_error', code, param, message, request_id: res.headers['request-id'] });
  });

  it('never repeats the value sent (it may be a card number)', async () => {
    // Prepare
    const Card = v.object({ number: v.pipe(v.string(), v.regex(/^\d{12,19}$/)) });
    const cards = http({ auth: 'public', body: Card }, async () => ({}));
    // Act
    const res = await invokeHttp(cards, apiEvent({ method: 'POST', path: '/x', body: { number: '4242 4242 4242 4242' } }));
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Invalid request body: number has the wrong format');
    expect(res.rawBody).not.toContain('4242');
  });
});

describe('query parameters', () => {
  const Query = v.pipe(
    v.object({ limit: v.optional(v.string()), status: v.optional(v.picklist(['paid', 'failed'])), 'created[gte]': v.optional(v.string()) }),
    v.check(() => true),
  );
  const list = http({ auth: 'public', query: Query }, async ({ query }) => query);
  const get = (handler: typeof list, query: string) => invokeHttp(handler, apiEvent({ method: 'GET', path: `/x?${query}` }));

  it('hands the handler the parameters it takes, bracketed names included', async () => {
    // Act
    const res = await get(list, 'limit=2&status=failed&created[gte]=2026-01-01');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ limit: '2', status: 'failed', 'created[gte]': '2026-01-01' });
  });

  /** What the merchant API's validation (strictQuery) answers for a query; undefined when it passes. */
  const refusal = (options: Parameters<typeof validate>[0], query: Record<string, string>) => {
    const request = { event: apiEvent({ method: 'GET', path: '/x', query }), internal: {} } as unknown as Parameters<
      NonNullable<ReturnType<typeof validate>['before']>
    >[0];
    try {
      void validate({ ...options, strictQuery: true }).before!(request);
      return undefined;
    } catch (error) {
      return error as AppError;
    }
  };

  it.each([
    [Query, { stauts: 'failed' }, 'stauts', 'unknown query parameter stauts (this endpoint takes limit, status, created[gte])'],
    [
      Query,
      { limit: '2', 'created[gt]': 'x' },
      'created[gt]',
      'unknown query parameter created[gt] (this endpoint takes limit, status, created[gte])',
    ],
    [Query, { lmit: '2', stauts: 'x' }, 'lmit', 'unknown query parameters lmit, stauts (this endpoint takes limit, status, created[gte])'],
    [Query, { ['__proto__']: 'x' }, '__proto__', 'unknown query parameter __proto__ (this endpoint takes limit, status, created[gte])'],
    [undefined, { expand: 'customer' }, 'expand', 'unknown query parameter expand (this endpoint takes no query parameters)'],
  ])('refuses an unknown parameter with 400 parameter_unknown naming it (%#)', (query, params, param, reason) => {
    // Act
    const error = refusal({ query }, params);
    // Assess
    expect(error).toMatchObject({ status: 400, code: 'parameter_unknown', message: `Invalid request body: ${reason}`, details: { param } });
  });

  it('refuses a query parameter on an endpoint that takes a body only', () => {
    expect(refusal({ body: Body }, { amount: '5' })).toMatchObject({ status: 400, code: 'parameter_unknown', details: { param: 'amount' } });
  });

  it('lets a public endpoint (a link, a provider callback) ignore what it does not take', async () => {
    // Act
    const res = await get(list, 'limit=2&utm_source=newsletter');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ limit: '2' });
  });
});
