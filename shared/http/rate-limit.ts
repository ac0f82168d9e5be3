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
 * request limit+1 in a window is a 429 with Retry-After.
 */
export const rateLimit = (options: RateLimitOptions): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const state = stateOf(request);
    const subject = options.per === 'ip' ? state.sourceIp : state.merchant!.id;
    const now = clock.now();
    const windowStart = now - (now % WINDOW_MS);
    const windowEnd = windowStart + WINDOW_MS;
    const count = await countInWindow(options.name, subject, windowStart, windowEnd);
    const headers = {
      'X-RateLimit-Limit': String(options.limit),
      'X-RateLimit-Remaining': String(Math.max(0, options.limit - count)),
      'X-RateLimit-Reset': String(Math.ceil(windowEnd / 1000)),
    };
    Object.assign(state.responseHeaders, headers);
    if (count > options.limit) {
      throw new RateLimited({ 'Retry-After': String(Math.max(1, Math.ceil((windowEnd - now) / 1000))) });
    }
  },
});
