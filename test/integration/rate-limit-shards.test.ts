import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { clock } from '../../shared/model/clock.ts';
import { http } from '../../shared/http/index.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { rateLimitKeys, windowShards } from '../../shared/store/keys.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';

/** A limited endpoint of its own (a unique counter name per test), called from one client IP. */
function limitedEndpoint(limit: number, perKey?: number) {
  const name = `test-${randomUUID()}`;
  const handler = http({ auth: 'public', rateLimit: { name, limit, per: 'ip', perKey } }, async () => ({ ok: true }));
  const call = () => invokeHttp(handler, apiEvent({ method: 'POST', path: '/x', sourceIp: '203.0.113.9' }));
  const keyCount = async (windowStart: number, shard: number) =>
    Number(
      (await db.send(new GetCommand({ TableName: TABLE, Key: rateLimitKeys.window(name, '203.0.113.9', windowStart, shard) }))).Item?.count ?? 0,
    );
  return { call, keyCount };
}

/** Runs `act` with the clock fixed inside one window, 45 s from its start. */
async function inOneWindow<T>(act: (windowStart: number) => Promise<T>): Promise<T> {
  const realNow = clock.now;
  const windowStart = Math.floor(realNow() / 60_000) * 60_000;
  clock.now = () => windowStart + 45_000;
  try {
    return await act(windowStart);
  } finally {
    clock.now = realNow;
  }
}

describe('a rate-limit window split over several keys', () => {
  it('keeps one exact key up to 6,000 a minute, and splits a higher limit into keys of at most 6,000 each', () => {
    expect([100, 6_000, 6_001, 60_000, 60_001].map((limit) => windowShards(limit))).toEqual([1, 1, 2, 10, 11]);
  });

  it('counts each request on one key, refuses it once that key has taken its share, and never admits more than the limit', async () => {
    // Prepare: a limit of 12 split into 3 keys of 4
    const { call, keyCount } = limitedEndpoint(12, 4);
    // Act: 30 requests, one after another
    const answers = await inOneWindow(async (windowStart) => {
      const answers = [];
      for (let i = 0; i < 30; i++) answers.push(await call());
      return { answers, counts: await Promise.all([0, 1, 2].map((shard) => keyCount(windowStart, shard))) };
    });
    // Assess: every request counted on one of the three keys; each key admitted exactly its first 4
    const admitted = answers.answers.filter((a) => a.status === 200);
    const limited = answers.answers.filter((a) => a.status === 429);
    expect(answers.counts.reduce((a, b) => a + b, 0)).toBe(30);
    expect(admitted.length).toBe(answers.counts.reduce((sum, count) => sum + Math.min(count, 4), 0));
    expect(admitted.length).toBeLessThanOrEqual(12);
    expect(admitted.length + limited.length).toBe(30);
    expect(limited[0]!.body.error).toMatchObject({ type: 'rate_limit_error', message: 'Rate limit exceeded (12/min)' });
    expect(limited[0]!.headers).toMatchObject({ 'retry-after': '15', 'x-ratelimit-limit': '12', 'x-ratelimit-remaining': '0' });
    // the headers estimate the window from the request's key: its count times three used, none left at its share
    expect(new Set(admitted.map((a) => a.headers['x-ratelimit-remaining']))).toEqual(new Set(['9', '6', '3', '0']));
  });

  it('keeps a limit within one key exact: request limit + 1 is the first refused', async () => {
    const { call, keyCount } = limitedEndpoint(5, 4_000);
    const { statuses, count } = await inOneWindow(async (windowStart) => {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await call()).status);
      return { statuses, count: await keyCount(windowStart, 0) };
    });
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(count).toBe(6);
  });
});
