import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { logger } from './logger.ts';
import { withSourceStack } from './source-mapped.ts';
import { traceInvocation } from './tracer.ts';

/**
 * A background function's handler (queue consumer or schedule): traced, and every log line it writes carries its
 * Lambda context (function name, request id, cold start), as the HTTP chain's do, and no keys left from an earlier
 * invocation. Business metrics are written when they happen (shared/metrics.ts), so nothing is left to flush. A
 * failure is logged with its stack in source positions, then left to Lambda (which retries the event).
 */
export const worker = <E, R>(handler: (event: E, context: Context) => Promise<R>) =>
  middy<E, R>()
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({ onError: (request) => logger.error('Unhandled error', withSourceStack(request.error as Error)) })
    .handler(handler);
