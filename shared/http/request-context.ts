import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { freshOrigin } from '../domain/ids.ts';
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

/** The API's public base URL as the caller reached it: scheme and host from the request, plus the stage if in the path. */
function baseUrlOf(event: APIGatewayProxyEvent): string {
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const host = headers['host'] ?? 'localhost';
  const proto = headers['x-forwarded-proto'] ?? (/^(localhost|127\.|\[::1\])/.test(host) ? 'http' : 'https');
  const stage = event.requestContext?.stage;
  const stagePrefix = stage && event.requestContext?.path?.startsWith(`/${stage}/`) ? `/${stage}` : '';
  return `${proto}://${host}${stagePrefix}`;
}
