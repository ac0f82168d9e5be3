import { isRequestXRaySampled } from '@aws-lambda-powertools/commons/utils/env';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type middy from '@middy/core';
import { onFirstUse } from './first-use.ts';

/**
 * X-Ray tracing through Powertools Tracer: a segment per invocation (with the cold start), a subsegment per AWS SDK call
 * and per outgoing HTTP request, and the annotations below. The Tracer and X-Ray SDK (about 110 KB, a fifth of a cold
 * start) load on the first invocation X-Ray samples, not at init, then wrap the clients made before them and stay:
 * unsampled containers, tests and `npm start` never load them.
 */
type Client = Parameters<Tracer['captureAWSv3Client']>[0];

const clients: Client[] = [];
let loaded: Tracer | undefined;
let invocations = 0;

const load = onFirstUse(async () => {
  const [{ Tracer }, { captureLambdaHandler }] = await Promise.all([
    import('@aws-lambda-powertools/tracer'),
    import('@aws-lambda-powertools/tracer/middleware'),
  ]);
  const tracer = new Tracer(); // its service is POWERTOOLS_SERVICE_NAME, read by Powertools
  // its ColdStart annotation belongs to the container's first invocation, which may have gone untraced: spend it
  // (Powertools' Utility reads and clears the flag in getColdStart, which it declares protected)
  if (invocations > 1) (tracer as unknown as { getColdStart(): boolean }).getColdStart();
  for (const client of clients) tracer.captureAWSv3Client(client);
  loaded = tracer;
  return { tracer, captureLambdaHandler };
});

/** An AWS SDK client, traced from the first sampled invocation on (the same client, its middleware stack extended). */
export function traced<C extends Client>(client: C): C {
  clients.push(client);
  loaded?.captureAWSv3Client(client);
  return client;
}

/** Searchable annotations on the invocation's trace: ids and provider names only, never card data or credentials. */
export function annotate(annotations: Partial<Record<'merchant' | 'payment' | 'provider', string>>): void {
  if (!loaded || !isRequestXRaySampled()) return;
  for (const [key, value] of Object.entries(annotations)) if (value) loaded.putAnnotation(key, value);
}

type Phases = Required<middy.MiddlewareObj>;
const PHASES = 'tracing';
const phasesOf = (request: middy.Request) => (request.internal as Record<string, Phases | undefined>)[PHASES];

/**
 * The invocation's trace (Powertools' `captureLambdaHandler`, response not recorded), on a sampled invocation: the
 * first one loads the Tracer. The phases of that invocation are kept on `request.internal`.
 */
export function traceInvocation(): middy.MiddlewareObj {
  const before = async (request: middy.Request) => {
    invocations++;
    if (!isRequestXRaySampled()) return;
    const { tracer, captureLambdaHandler } = await load();
    const phases = captureLambdaHandler(tracer, { captureResponse: false }) as Phases;
    (request.internal as Record<string, Phases>)[PHASES] = phases;
    await phases.before(request);
  };
  return {
    before,
    after: async (request) => void (await phasesOf(request)?.after(request)),
    onError: async (request) => void (await phasesOf(request)?.onError(request)),
  };
}
