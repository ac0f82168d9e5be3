import { Logger } from '@aws-lambda-powertools/logger';

/** One structured logger per container. Never log request bodies: they may hold card data. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'payments-api' });
