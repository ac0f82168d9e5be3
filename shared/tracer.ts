import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * One X-Ray tracer per container (Powertools Tracer): a segment per invocation with the cold start, a subsegment per
 * AWS SDK call (clients are wrapped where they are created) and per outgoing HTTP request (provider calls).
 * Off outside Lambda (`POWERTOOLS_DEV`, tests, `npm start`), where every call below does nothing.
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'payments-api' });

/** Searchable annotations on the invocation's trace: ids and provider names only, never card data or credentials. */
export function annotate(annotations: Partial<Record<'merchant' | 'payment' | 'provider', string>>): void {
  for (const [key, value] of Object.entries(annotations)) if (value) tracer.putAnnotation(key, value);
}
