/** What shared/tracer.ts loads with the first sampled invocation: one module, so the build makes one chunk of it. */
export { Tracer } from '@aws-lambda-powertools/tracer';
export { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
