import { describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as configure } from '../../functions/webhooks/configure.ts';
import { handler as get } from '../../functions/webhooks/get.ts';
import { handler as update } from '../../functions/webhooks/update.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';

/** One webhook endpoint read and changed (DECISIONS "Lists": `GET|PUT /api/webhooks/:id`). */
const call = {
  configure: (key: string, body: unknown) =>
    invokeHttp(configure, apiEvent({ method: 'POST', path: '/api/webhooks/configure', headers: bearer(key), body })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/webhooks/${id}`, headers: bearer(key) })),
  update: (key: string, id: string, body: unknown) =>
    invokeHttp(update, apiEvent({ method: 'PUT', path: `/api/webhooks/${id}`, headers: bearer(key), body })),
};

const liveKeyOf = async (merchantId: string): Promise<string> => {
  const made = await invokeHttp(
    createKey,
    apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
  );
  return made.body.key as string;
};

describe('GET /api/webhooks/:id', () => {
  it('answers the endpoint as listed, without its secret', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['payment.succeeded'] });
    // Act
    const res = await call.get(apiKey, made.body.id);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: made.body.id,
      object: 'webhook',
      livemode: false,
      url: 'http://127.0.0.1:9/hooks',
      events: ['payment.succeeded'],
      status: 'active',
      created_at: made.body.created_at,
    });
  });

  it("answers 404 for another merchant's endpoint, the other mode's, an unknown id and an id of the wrong shape", async () => {
    // Prepare
    const owner = await newMerchant();
    const stranger = await newMerchant();
    const made = await call.configure(owner.apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    const liveKey = await liveKeyOf(owner.merchantId);
    // Act
    const answers = await Promise.all([
      call.get(stranger.apiKey, made.body.id),
      call.get(liveKey, made.body.id),
      call.get(owner.apiKey, 'whk_01jd0000000000000000000000'),
      call.get(owner.apiKey, 'pay_01jd0000000000000000000000'),
      call.get(owner.apiKey, 'nonsense'),
    ]);
    // Assess: the same answer, which reveals nothing of the other's endpoint
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: expect.stringMatching(/^Resource not found/),
      });
    }
    expect(answers[0]!.body.error.message).toBe(`Resource not found: no webhook endpoint ${made.body.id} in test mode`);
    expect(answers[1]!.body.error.message).toBe(`Resource not found: no webhook endpoint ${made.body.id} in live mode`);
  });
});

describe('PUT /api/webhooks/:id', () => {
  it('changes the url, events and status sent, keeps the others, and reads back what it answered', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['payment.succeeded'] });
    // Act
    const moved = await call.update(apiKey, made.body.id, { url: 'http://127.0.0.1:9/v2/hooks' });
    const widened = await call.update(apiKey, made.body.id, { events: ['payment.refunded', 'payment.refunded', 'payment.captured'] });
    const disabled = await call.update(apiKey, made.body.id, { status: 'disabled' });
    const everything = await call.update(apiKey, made.body.id, { events: ['*', 'payment.failed'], status: 'active' });
    const read = await call.get(apiKey, made.body.id);
    // Assess
    expect(moved.body).toMatchObject({ url: 'http://127.0.0.1:9/v2/hooks', events: ['payment.succeeded'], status: 'active' });
    expect(widened.body).toMatchObject({ url: 'http://127.0.0.1:9/v2/hooks', events: ['payment.refunded', 'payment.captured'] });
    expect(disabled.body).toMatchObject({ status: 'disabled', events: ['payment.refunded', 'payment.captured'] });
    expect(everything.body).toMatchObject({ status: 'active', events: ['*'] });
    expect(read.body).toEqual(everything.body);
    expect(everything.body).not.toHaveProperty('secret');
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/'],
    ['https://10.0.0.1/hooks'],
    ['https://[fd00:ec2::254]/'],
    ['https://metadata.google.internal/'],
    ['http://hooks.example.com/'],
    ['https://user:pass@hooks.example.com/'],
  ])('refuses the url %s as configure does, and keeps the endpoint as it was', async (url) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    // Act
    const res = await call.update(apiKey, made.body.id, { url, status: 'disabled' });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'url_not_allowed',
      param: 'url',
      message: expect.stringMatching(/^Invalid request body/),
    });
    expect((await call.get(apiKey, made.body.id)).body).toMatchObject({ url: 'http://127.0.0.1:9/hooks', status: 'active' });
  });

  it.each([
    [{ events: [] }, 'events', 'parameter_invalid'],
    [{ events: ['payment.exploded'] }, 'events.0', 'parameter_invalid'],
    [{ status: 'paused' }, 'status', 'parameter_invalid'],
    [{ url: '' }, 'url', 'parameter_invalid'],
    [{ url: 42 }, 'url', 'parameter_invalid'],
  ])('answers 400 in the documented shape to %o', async (body, param, code) => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await call.configure(apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    // Act
    const res = await call.update(apiKey, made.body.id, body);
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param, message: expect.stringMatching(/^Invalid request body: .+/) });
    expect(res.body.error.message).not.toMatch(/expected|\/\^/);
  });

  it("answers 404 for another merchant's endpoint and the other mode's, and changes nothing", async () => {
    // Prepare
    const owner = await newMerchant();
    const stranger = await newMerchant();
    const made = await call.configure(owner.apiKey, { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    const liveKey = await liveKeyOf(owner.merchantId);
    // Act
    const byStranger = await call.update(stranger.apiKey, made.body.id, { status: 'disabled' });
    const byLive = await call.update(liveKey, made.body.id, { url: 'http://127.0.0.1:9/elsewhere' });
    // Assess
    expect(byStranger.status).toBe(404);
    expect(byLive.status).toBe(404);
    expect((await call.get(owner.apiKey, made.body.id)).body).toMatchObject({ url: 'http://127.0.0.1:9/hooks', status: 'active' });
  });
});
