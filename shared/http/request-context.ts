import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { config } from '../config.ts';
import { freshOrigin } from '../model/ids.ts';
import { logger } from '../logger.ts';
import { initState } from './types.ts';

/** Gives the request its id (the `Request-Id` header) and puts it, with method and route, on every log line. */
export const requestContext = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const event = request.event;
    // API Gateway's own request id (a UUID, also in its access logs) when there is one.
    const requestId = event.requestContext?.requestId || randomUUID();
    initState(request, {
      requestId,
      sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown',
      responseHeaders: { 'Request-Id': requestId },
      rawBody: {},
      body: {},
      query: {},
      params: {},
      baseUrl: baseUrlOf(event),
      origin: freshOrigin(),
    });
    logger.appendKeys({ request_id: requestId, method: event.httpMethod, route: event.resource });
  },
});

/**
 * The API's public base URL, for links the API hands out (`pdf_url`, the invoice e-mail). Never from request headers
 * (`Host`, `X-Forwarded-*` are the client's to forge): the configured `PUBLIC_API_URL` when set, else the domain API
 * Gateway itself served the request on (`requestContext.domainName`) plus the stage when it is in the path (the
 * execute-api domain; a custom domain maps it away). HTTPS in AWS; the local gateway speaks HTTP.
 */
export function baseUrlOf(event: APIGatewayProxyEvent): string {
  if (config.PUBLIC_API_URL) return config.PUBLIC_API_URL;
  const context = event.requestContext;
  const domain = context?.domainName || 'localhost';
  const scheme = config.APP_ENV === 'local' ? 'http' : 'https';
  const stage = context?.stage;
  const stagePrefix = stage && context?.path?.startsWith(`/${stage}/`) ? `/${stage}` : '';
  return `${scheme}://${domain}${stagePrefix}`;
}
