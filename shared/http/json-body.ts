import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequest } from '../domain/errors.ts';
import { stateOf } from './types.ts';

export const MAX_BODY_BYTES = 64 * 1024;

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
