import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { clock } from '../model/clock.ts';
import { hmac } from '../model/credentials.ts';
import { AppError, BadRequest, IdempotencyKeyInUse, IdempotencyKeyReused } from '../model/errors.ts';
import { readSecret } from '../secrets.ts';
import * as idempotencyStore from '../store/idempotency.ts';
import { logger } from '../logger.ts';
import { withSourceStack } from '../source-mapped.ts';
import { renderError } from './error-mapper.ts';
import { stateOf } from './types.ts';
import * as keys from '../store/keys.ts';
import { ownerOf } from '../domain/auth.ts';

const KEEP_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

/** This request's hold on its key, kept on Middy's `request.internal`. */
interface Claim {
  scope: string;
  key: string;
  lockedUntil: number;
}
const CLAIM = 'idempotencyClaim';
const claimOf = (request: { internal: object }) => (request.internal as Record<string, Claim | undefined>)[CLAIM];

/**
 * `Idempotency-Key` on a merchant's POST (docs/architecture.md "Two pieces kept hand-written"): the first response
 * (success or client error) is stored for 24 h and replayed with `Idempotent-Replayed: true`; the key with another
 * request is a 400, and while the first holds its lease a 409 with `Retry-After`. Runs after validation; a replay is
 * never counted by the rate limit (the claim tells it apart, then counts the others). A server error never frees the
 * key, as its writes may still commit: only `nothingCommitted` ends the lease at once, and a retry after the lease
 * runs again with the key's first `origin`, minting the same ids. `withhold`: fields left out of the stored response.
 */
export const idempotency = ({ withhold = [] }: { withhold?: readonly string[] } = {}): MiddlewareObj<
  APIGatewayProxyEvent,
  APIGatewayProxyResult
> => ({
  before: async (request) => {
    const key = request.event.headers?.['idempotency-key'];
    if (key === undefined) return;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new BadRequest('parameter_invalid', 'Idempotency-Key');
    const state = stateOf(request);
    // keys are the merchant's per mode and kind of credential: a test request never replays (or blocks) a live one,
    // and a publishable key's (anyone's browser) never a secret key's or a session's
    const merchant = state.merchant!;
    const scope = keys.idempotencyKeys.scope(ownerOf(merchant), merchant.credential);
    const now = clock.now();
    const lockMs = (request.context.getRemainingTimeInMillis?.() ?? 30_000) + 5_000;
    const hash = await requestHash(request.event, state.rawBody);
    const claim = await idempotencyStore.claimIdempotencyKey(scope, key, hash, now, lockMs, KEEP_MS);
    if (claim.claimed) {
      (request.internal as Record<string, Claim>)[CLAIM] = { scope, key, lockedUntil: claim.lockedUntil };
      state.origin = { at: claim.firstAt, seed: `${scope}#${key}#${claim.firstAt}` };
      // the request runs: the rate limit counts it now (with a concurrent limit, while the function reads)
      await state.rateLimit?.count();
      return;
    }
    const { existing } = claim;
    if (existing.request_hash === hash && existing.status === 'completed') {
      // a replay is not counted (a client recovering from an outage gets its answers, not 429s); an early answer skips `after`
      await state.rateLimit?.peek();
      return {
        statusCode: existing.response_status!,
        headers: {
          'Content-Type': 'application/json',
          ...state.responseHeaders,
          'Idempotent-Replayed': 'true',
        },
        body: existing.response_body!,
      } satisfies APIGatewayProxyResult;
    }
    // a refusal answers only a request the rate limit admits (with its headers)
    await state.rateLimit?.count();
    await state.admission;
    if (existing.request_hash !== hash) throw new IdempotencyKeyReused();
    throw new IdempotencyKeyInUse((existing.locked_until - now) / 1000);
  },
  after: async (request) => {
    const claim = claimOf(request);
    if (!claim || !request.response) return;
    const { statusCode, body } = request.response;
    await idempotencyStore.completeIdempotencyKey(claim.scope, claim.key, statusCode, withhold.length ? withheld(body, withhold) : body);
  },
  onError: async (request) => {
    const claim = claimOf(request);
    if (!claim) return;
    const error = request.error;
    try {
      if (error instanceof AppError && error.status < 500 && !error.nothingCommitted) {
        const rendered = renderError(stateOf(request), error);
        await idempotencyStore.completeIdempotencyKey(claim.scope, claim.key, rendered.statusCode, rendered.body);
      } else if (error instanceof AppError && error.nothingCommitted) {
        await idempotencyStore.endIdempotencyLease(claim.scope, claim.key, claim.lockedUntil);
      }
      // Anything else may have committed: the key stays in progress until its lease ends.
    } catch (e) {
      // The request's own error is what the client gets; the key then simply waits for its lease to end.
      logger.error('Idempotency record not updated after a failure', withSourceStack(e as Error));
    }
  },
});

/** The JSON body without the named top-level fields. */
function withheld(body: string, fields: readonly string[]): string {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  for (const field of fields) delete parsed[field];
  return JSON.stringify(parsed);
}

/**
 * The request a key stands for: method, path and the body as parsed JSON with sorted keys, keyed with the
 * idempotency secret. The same key on another method or path is another request (400 `idempotency_key_reused`), whatever the
 * body. A payment's body holds a card number: the stored hash must not let anyone with the table test guesses (an
 * unkeyed hash of a number whose BIN and last4 are known falls to brute force), and a CVC is not kept in any form, so
 * every `cvc` field is left out, at any depth (a replay that differs only in its CVC is the same request).
 */
async function requestHash(event: APIGatewayProxyEvent, body: unknown): Promise<string> {
  return hmac(await readSecret('idempotency'), `${event.httpMethod} ${event.path}\n${canonicalJson(body)}`);
}

/**
 * JSON with sorted keys, without any field named `cvc`. Recursive on purpose: its depth is bounded, since bodies
 * nested deeper than MAX_BODY_DEPTH are refused before they are parsed (json-body.ts).
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([k]) => k !== 'cvc')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
