import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequest } from '../domain/errors.ts';
import { stateOf } from './types.ts';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Deepest nesting of objects and arrays a body may have. Deeper bodies are refused (400 `invalid_body`) before they
 * are parsed: JSON.parse with a reviver, JSON.stringify, the idempotency hash and loggers all recurse, and a body
 * nested 5,000 deep overflows their stack (a 500). No request schema comes near this depth.
 */
export const MAX_BODY_DEPTH = 64;

/** True when the JSON text nests objects/arrays deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \\ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/**
 * Parses a JSON object body. An absent or empty body is `{}` (the schema then decides what is missing).
 * Any other content type, oversized, malformed or non-object body is a 400 with its own code.
 */
export const jsonBody = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const event = request.event;
    const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
    const state = stateOf(request);
    if (raw.trim() === '') {
      state.rawBody = state.body = {};
      return;
    }
    if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) throw new BadRequest('body_too_large');
    const contentType = event.headers?.['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) throw new BadRequest('invalid_content_type');
    if (nestsDeeperThan(raw, MAX_BODY_DEPTH)) throw new BadRequest('invalid_body');
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new BadRequest('invalid_json');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadRequest('invalid_body');
    state.rawBody = state.body = parsed;
  },
});
