import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequest } from '../model/errors.ts';
import { MAX_BODY_BYTES } from './json-body.ts';
import { stateOf } from './types.ts';

/**
 * The body exactly as sent, for requests verified by a signature over its bytes (a provider's notifications, whose
 * content type is the provider's: JSON, a form): decoded from base64 when API Gateway encoded it, never parsed.
 */
export const rawBody = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const event = request.event;
    const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
    const bytes = Buffer.byteLength(raw, 'utf8');
    if (bytes > MAX_BODY_BYTES * 4)
      throw new BadRequest('body_too_large', undefined, `the body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES * 4} bytes`);
    stateOf(request).rawBody = raw;
  },
});
