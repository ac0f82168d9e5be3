import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger per container. Never log request bodies: they may hold card data. Its `service` is
 * POWERTOOLS_SERVICE_NAME, which Powertools reads itself (set by the stack and the local runtime).
 */
export const logger = new Logger();
