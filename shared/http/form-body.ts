import type { MiddlewareObj } from '@middy/core';
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequest, PermissionDenied } from '../model/errors.ts';
import { MAX_BODY_BYTES } from './json-body.ts';
import { stateOf } from './types.ts';

/**
 * A shopper's form is taken only from this service's own pages: its `Origin` is the service's origin, or, without one
 * (or `null`, as a page sends under some referrer policies), the browser's `Sec-Fetch-Site` says `same-origin`. A
 * form another site makes the shopper's browser post (cross-site request forgery) has neither.
 */
export function fromOwnPage(headers: Readonly<Record<string, string | undefined>>, baseUrl: string): boolean {
  const origin = headers.origin;
  if (origin !== undefined && origin !== 'null') return origin === new URL(baseUrl).origin;
  return headers['sec-fetch-site'] === 'same-origin';
}

/**
 * A form a shopper's browser posts (a hosted page without script): taken only from our own page (`fromOwnPage`: 403
 * `permission_denied` otherwise, before anything is read), parsed by `@middy/http-urlencode-body-parser`, then
 * validated like a JSON body. A field sent twice is an array, which no form schema accepts. Refusals are the
 * 400s of docs/api.md "Requests": another content type `invalid_content_type`, over 64 KB `body_too_large`.
 */
export const formBody = (): MiddlewareObj<APIGatewayProxyEvent> => {
  const parser = httpUrlencodeBodyParser<APIGatewayProxyEvent>();
  return {
    before: (request) => {
      const event = request.event;
      if (!fromOwnPage(event.headers ?? {}, stateOf(request).baseUrl)) {
        throw new PermissionDenied('this form is taken only from its own payment page, and nothing was charged');
      }
      const bytes = Buffer.byteLength(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      if (bytes > MAX_BODY_BYTES) throw new BadRequest('body_too_large', undefined, `the body is ${bytes} bytes; the limit is 64 KB`);
      try {
        parser.before!(request);
      } catch {
        const type = event.headers?.['content-type'];
        throw new BadRequest(
          'invalid_content_type',
          undefined,
          `Content-Type must be application/x-www-form-urlencoded${type ? `, not ${type.slice(0, 100)}` : ''}`,
        );
      }
      stateOf(request).body = { ...(event.body as unknown as Record<string, unknown>) };
    },
  };
};
