import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequest } from '../model/errors.ts';
import { stateOf } from './types.ts';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Deepest nesting of objects and arrays a body may have. Deeper bodies are refused (400 `parameter_invalid`) before they
 * are parsed: JSON.parse with a reviver (Middy's parser uses one), JSON.stringify, the idempotency hash and loggers
 * all recurse, and a body nested 5,000 deep overflows their stack (a 500). No request schema comes near this depth.
 */
export const MAX_BODY_DEPTH = 64;

/** True when the JSON text nests objects/arrays deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** What Middy's parser throws (an `HttpError` of @middy/util): 415 for the content type, 422 for the JSON. */
interface MiddyHttpError {
  statusCode: number;
  message: string;
  cause?: { data?: unknown };
}
const isMiddyHttpError = (e: unknown): e is MiddyHttpError => e instanceof Error && typeof (e as Partial<MiddyHttpError>).statusCode === 'number';

/**
 * Middy's 415/422 as the 400s of docs/api.md "Requests" (`invalid_content_type`, `invalid_json`), with a reason. A key Middy
 * forbids (`__proto__`, or `constructor` holding a `prototype`) is a field like any invalid one: `parameter_invalid`
 * naming its path, as the schemas name a bad metadata key.
 */
function asBadRequest(e: MiddyHttpError, raw: string, contentType: string | undefined): BadRequest {
  if (e.statusCode === 415) {
    return new BadRequest(
      'invalid_content_type',
      undefined,
      `Content-Type must be application/json${contentType ? `, not ${contentType.slice(0, 100)}` : ''}`,
    );
  }
  if (e.message === 'Forbidden key in JSON body') {
    const key = String(e.cause?.data);
    const path = pathOfKey(JSON.parse(raw), key);
    return new BadRequest('parameter_invalid', path, `${path ?? 'a key'} is not allowed (the key ${JSON.stringify(key)} is reserved)`);
  }
  return new BadRequest('invalid_json', undefined, 'the body is not valid JSON');
}

/**
 * The dot path (`metadata.__proto__`) of the first `key` in a parsed body, breadth first. Plain JSON.parse makes such a
 * key an own property, so looking is safe; the body is then refused, never used.
 */
function pathOfKey(body: unknown, key: string): string | undefined {
  const queue: Array<{ value: unknown; path: string[] }> = [{ value: body, path: [] }];
  for (let item = queue.shift(); item; item = queue.shift()) {
    if (!item.value || typeof item.value !== 'object') continue;
    for (const [k, v] of Object.entries(item.value)) {
      const path = [...item.path, k];
      if (k === key) return path.join('.');
      queue.push({ value: v, path });
    }
  }
  return undefined;
}

/**
 * Parses a JSON object body with `@middy/http-json-body-parser` (which decodes base64 bodies, checks the content
 * type, and refuses `__proto__` keys), around the rules it does not know: an absent or empty body is `{}` (the
 * schema then decides what is missing) whatever its content type; a body over 64 KB is `body_too_large` and one
 * nested too deep `parameter_invalid`, both checked before parsing; a body that is not an object is `parameter_invalid`.
 * Every refusal is a 400 with its own code.
 */
export const jsonBody = (): MiddlewareObj<APIGatewayProxyEvent> => {
  const parser = httpJsonBodyParser<APIGatewayProxyEvent>();
  return {
    before: (request) => {
      const event = request.event;
      const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
      const state = stateOf(request);
      if (raw.trim() === '') {
        state.rawBody = state.body = {};
        return;
      }
      const bytes = Buffer.byteLength(raw, 'utf8');
      if (bytes > MAX_BODY_BYTES) {
        throw new BadRequest('body_too_large', undefined, `the body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (64 KB)`);
      }
      if (nestsDeeperThan(raw, MAX_BODY_DEPTH))
        throw new BadRequest('parameter_invalid', undefined, `objects and arrays may nest at most ${MAX_BODY_DEPTH} levels deep`);
      try {
        parser.before!(request);
      } catch (e) {
        if (isMiddyHttpError(e)) throw asBadRequest(e, raw, event.headers?.['content-type']);
        throw e;
      }
      const parsed: unknown = event.body;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new BadRequest(
          'parameter_invalid',
          undefined,
          `the body must be a JSON object, not ${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`}`,
        );
      }
      state.rawBody = state.body = parsed;
    },
  };
};
