import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { clock } from '../domain/clock.ts';
import { RateLimited } from '../domain/errors.ts';
import { countInWindow } from '../store/rate-limits.ts';
import { stateOf } from './types.ts';

export interface RateLimitOptions {
  /** names the counter, e.g. `payments-create` */
  name: string;
  limit: number;
  /** whose requests are counted together */
  per: 'ip' | 'merchant';
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows counted atomically in DynamoDB. Every response carries X-RateLimit-* headers;
 * request limit+1 in a window is a 429 with Retry-After. A request refused before it could be counted (a 401:
 * no merchant to count it for) carries them too, with nothing used up.
 */
export const rateLimit = (options: RateLimitOptions): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const state = stateOf(request);
    const subject = options.per === 'ip' ? state.sourceIp : state.merchant!.id;
    const now = clock.now();
    const { windowEnd, headers } = windowOf(options.limit, now);
    const count = await countInWindow(options.name, subject, windowEnd - WINDOW_MS, windowEnd);
    Object.assign(state.responseHeaders, headers(count));
    if (count > options.limit) {
      throw new RateLimited(options.limit, { 'Retry-After': String(Math.max(1, Math.ceil((windowEnd - now) / 1000))) });
    }
  },
  onError: (request) => {
    const state = stateOf(request);
    if (!state.responseHeaders['X-RateLimit-Limit']) Object.assign(state.responseHeaders, windowOf(options.limit, clock.now()).headers(0));
  },
});

function windowOf(limit: number, now: number) {
  const windowEnd = now - (now % WINDOW_MS) + WINDOW_MS;
  const headers = (count: number) => ({
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
    'X-RateLimit-Reset': String(Math.ceil(windowEnd / 1000)),
  });
  return { windowEnd, headers };
}
