import type { APIGatewayProxyResult } from 'aws-lambda';
import type { RequestState } from './types.ts';

/** The one place an HTTP response is built: JSON body, Content-Type, Request-Id and the chain's extra headers. */
export function jsonResponse(
  state: RequestState | undefined,
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: {
      'Content-Type': 'application/json',
      ...(state && { 'Request-Id': state.requestId, ...state.responseHeaders }),
      ...headers,
    },
    body: JSON.stringify(body),
  };
}
