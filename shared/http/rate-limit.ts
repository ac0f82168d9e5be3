import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { clock } from '../model/clock.ts';
import { AppError, RateLimited } from '../model/errors.ts';
import * as keys from '../store/keys.ts';
import * as rateLimits from '../store/rate-limits.ts';
import { maybeStateOf, type RequestState, stateOf } from './types.ts';

export interface RateLimitOptions {
  /** names the counter, e.g. `payments-create` */
  name: string;
  limit: number;
  /**
   * whose requests are counted together; `publishable key and ip`: a publishable key's from one client IP (card
   * testing through a shop's page), while requests with a secret key or session are not counted by this limit
   */
  per: 'ip' | 'merchant' | 'publishable key and ip';
  /**
   * with `per: 'publishable key and ip'`: also at most this many a minute per publishable key, whatever the client IPs
   * (a window of its own, `<name>-per-key`): many IPs cannot take a key further than this
   */
  perPublishableKey?: number;
  /** requests one window key may take (tests lower it to see a split window at work) */
  perKey?: number;
  /**
   * count the request while the function runs its reads, instead of before it: the function gets `admitted` and
   * awaits it before its first write (one round trip less on the way to it). The response waits for the count either
   * way, and a refused request answers 429 whatever the function did meanwhile.
   */
  concurrent?: true;
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows counted atomically in DynamoDB. Every response carries X-RateLimit-* headers (a 401 too,
 * with nothing used up); request limit+1 in a window is a 429 with Retry-After. A limit above `perKey` (6,000 a minute)
 * is split over keys with an equal share each, so no window is bound to one partition: a request is counted on one at
 * random, refused once its share is used, and the headers estimate the window from it (within a few percent).
 * `replaysFree` (an idempotent endpoint): a request with an Idempotency-Key is counted by idempotency.ts once its key
 * is known not to be a replay, so a replay is never counted; one refused before that (a bad body) is counted here.
 */
export const rateLimit = (options: RateLimitOptions, { replaysFree = false } = {}): MiddlewareObj<APIGatewayProxyEvent> => {
  const limits = [
    { name: options.name, limit: options.limit, per: options.per },
    ...(options.perPublishableKey ? [{ name: `${options.name}-per-key`, limit: options.perPublishableKey, per: 'publishable key' as const }] : []),
  ].map((l) => {
    const shards = keys.windowShards(l.limit, options.perKey ?? keys.REQUESTS_PER_WINDOW_KEY);
    return { ...l, shards, share: Math.floor(l.limit / shards) };
  });
  return {
    before: async (request) => {
      const state = stateOf(request);
      const now = clock.now();
      // each window this request is counted in (none: the request is not limited), on one of its keys at random
      const windows = limits.flatMap((l) => {
        const subject = subjectOf(l.per, state);
        if (subject === undefined) return [];
        const { windowEnd, headers } = windowOf(l.limit, now);
        const estimate = (count: number) => headers(count >= l.share ? l.limit : count * l.shards);
        return [{ ...l, subject, windowEnd, windowStart: windowEnd - WINDOW_MS, shard: Math.floor(Math.random() * l.shards), estimate }];
      });
      if (windows.length === 0) return;
      type Counted = { window: (typeof windows)[number]; count: number };
      // the headers tell of the window with the fewest requests left
      const tightest = (counted: Counted[]) =>
        counted
          .map(({ window, count }) => window.estimate(count))
          .reduce((a, b) => (Number(b['X-RateLimit-Remaining']) < Number(a['X-RateLimit-Remaining']) ? b : a));
      state.rateLimit = {
        count: () => {
          if (!state.admission) {
            state.admission = Promise.all(
              windows.map(async (window) => ({
                window,
                count: await rateLimits.countInWindow(window.name, window.subject, window.windowStart, window.windowEnd, window.shard),
              })),
            ).then((counted) => {
              const refused = counted.find(({ window, count }) => count > window.share);
              Object.assign(state.responseHeaders, refused ? refused.window.estimate(refused.count) : tightest(counted));
              if (refused) {
                const retryAfter = Math.max(1, Math.ceil((refused.window.windowEnd - now) / 1000));
                throw new RateLimited(refused.window.limit, { 'Retry-After': String(retryAfter) });
              }
            });
            // concurrent: awaited by the function and by `admission()` below (until then a refusal is not unhandled)
            if (options.concurrent) state.admission.catch(() => undefined);
          }
          return options.concurrent ? Promise.resolve() : state.admission;
        },
        // a replay is answered even if its window cannot be read (then it says none is left, the cautious guess)
        peek: async () => {
          const counted = await Promise.all(
            windows.map(async (window) => ({
              window,
              count: await rateLimits.readWindow(window.name, window.subject, window.windowStart, window.shard).catch(() => window.share),
            })),
          );
          Object.assign(state.responseHeaders, tightest(counted));
        },
      };
      if (replaysFree && request.event.headers?.['idempotency-key'] !== undefined) return;
      await state.rateLimit.count();
    },
    onError: async (request) => {
      const state = stateOf(request);
      // a request refused for its own fault before its deferred count (a bad body or key) is counted like any other
      if (state.rateLimit && !state.admission && request.error instanceof AppError && request.error.status < 500) {
        void state.rateLimit.count().catch(() => undefined); // its verdict is `admission`
        const refusal = await state.admission!.then(
          () => undefined,
          (error: unknown) => error,
        );
        if (refusal instanceof RateLimited) request.error = refusal;
      }
      if (!state.responseHeaders['X-RateLimit-Limit']) Object.assign(state.responseHeaders, windowOf(options.limit, clock.now()).headers(0));
    },
  };
};

function subjectOf(per: RateLimitOptions['per'] | 'publishable key', state: RequestState): string | undefined {
  if (per === 'ip') return state.sourceIp;
  if (per === 'merchant') return state.merchant!.id;
  if (state.merchant!.credential !== 'publishable') return undefined;
  return per === 'publishable key' ? state.merchant!.apiKeyId : `${state.merchant!.apiKeyId}@${state.sourceIp}`;
}

function windowOf(limit: number, now: number) {
  const windowEnd = now - (now % WINDOW_MS) + WINDOW_MS;
  const headers = (count: number) => ({
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
    'X-RateLimit-Reset': String(Math.ceil(windowEnd / 1000)),
  });
  return { windowEnd, headers };
}

/**
 * With a `concurrent` rate limit, the chain's last step before the function: the response waits for the count, and a
 * refused request answers 429 (so an idempotent request's key is freed, not completed with another answer).
 */
export const admission = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  after: async (request) => {
    await stateOf(request).admission;
  },
  onError: async (request) => {
    const refusal = await maybeStateOf(request)?.admission?.then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    if (refusal) request.error = refusal;
  },
});
