import type { APIGatewayProxyResult } from 'aws-lambda';
import { locationHeader } from '../domain/header-values.ts';
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

/** A non-JSON 200 body (e.g. an invoice PDF): a handler returns one of these instead of an object. */
export class FileBody {
  constructor(
    readonly contentType: string,
    readonly bytes: Uint8Array,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A shopper sent on with `303 See Other` (the hosted 3-D Secure pages), never cached; `location` made header-safe. */
export class Redirect {
  readonly location: string;
  constructor(location: string) {
    this.location = locationHeader(location);
  }
}

export function redirectResponse(state: RequestState, redirect: Redirect): APIGatewayProxyResult {
  return {
    statusCode: 303,
    headers: {
      Location: redirect.location,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'Request-Id': state.requestId,
      ...state.responseHeaders,
    },
    body: '',
  };
}

/** A file answer: base64 for API Gateway (whose binary media types let it through as bytes). */
export function fileResponse(state: RequestState, file: FileBody): APIGatewayProxyResult {
  return {
    statusCode: 200,
    isBase64Encoded: true,
    headers: { 'Content-Type': file.contentType, 'Request-Id': state.requestId, ...state.responseHeaders, ...file.headers },
    body: Buffer.from(file.bytes).toString('base64'),
  };
}
