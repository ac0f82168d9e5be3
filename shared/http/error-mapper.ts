import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { AppError, MESSAGES } from '../model/errors.ts';
import { logger } from '../logger.ts';
import { withSourceStack } from '../source-mapped.ts';
import { errorPage } from '../hosted/answers.ts';
import { jsonResponse } from './response.ts';
import { maybeStateOf, type RequestState } from './types.ts';

/**
 * The one error mapper: an AppError (status + safe message) becomes the documented error shape; anything else is
 * logged and answered with a bare 500 that leaks nothing. A hosted page or script (`page`) answers the same status
 * and message as a page a shopper's browser shows.
 */
export const errorMapper = (options: { page?: boolean } = {}): MiddlewareObj<APIGatewayProxyEvent> => ({
  onError: (request) => {
    const error = request.error;
    if (error instanceof AppError) {
      if (error.status >= 500) logger.error('Request failed', { code: error.code });
      else logger.info('Request rejected', { status: error.status, code: error.code });
    } else {
      logger.error('Unhandled error', withSourceStack(error as Error));
    }
    const response = renderError(maybeStateOf(request), error);
    request.response = options.page ? asPage(response) : response;
  },
});

function asPage(response: APIGatewayProxyResult): APIGatewayProxyResult {
  const { message } = (JSON.parse(response.body) as { error: { message: string } }).error;
  const page = errorPage(message);
  return { ...response, headers: { ...response.headers, ...page.headers }, body: page.html };
}

export function renderError(state: RequestState | undefined, error: unknown): APIGatewayProxyResult {
  const request_id = state?.requestId;
  if (error instanceof AppError) {
    const body = { error: { type: error.type, code: error.code, message: error.message, ...error.details, request_id } };
    return jsonResponse(state, error.status, body, error.headers);
  }
  return jsonResponse(state, 500, { error: { type: 'api_error', code: 'internal_error', message: MESSAGES[500], request_id } });
}
