import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { config } from './config.ts';
import * as domainErrors from './model/errors.ts';
import { AppError } from './model/errors.ts';
import { onFirstUse } from './first-use.ts';
import { functionVariableOf } from './invoke-names.ts';
import { localInvoker } from './local-invoker.ts';
import { traced } from './tracer.ts';
import { worker } from './worker.ts';

/**
 * A private function (catalog trigger `invoke`) called synchronously by the public function that names it: in AWS
 * through Lambda's Invoke, its name in the variable CDK sets on the caller only; locally (APP_ENV=local) in process,
 * by the invoker the local runtime or the test setup registers (shared/ knows no handler). The answer carries the
 * callee's typed domain errors back as the same classes, so the caller shows what it always showed.
 */
export type Answer<R> = { ok: true; value: R } | { ok: false; error: SentError };
interface SentError {
  name: string;
  message: string;
  /** the error's own fields: status, type, code, details, headers, … */
  fields: Record<string, unknown>;
}

const lambda = onFirstUse(async () => {
  const sdk = await import('@aws-sdk/client-lambda');
  return { sdk, client: traced(new sdk.LambdaClient({})) };
});

/** Runs the private function `name` on `payload` and answers its value, or throws its domain error. */
export async function invokeFunction<R>(name: string, payload: unknown): Promise<R> {
  const answer = (config.APP_ENV === 'local' ? await invokeLocally(name, payload) : await invokeInAws(name, payload)) as Answer<R>;
  if (answer.ok) return answer.value;
  throw errorFrom(answer.error);
}

async function invokeLocally(name: string, payload: unknown): Promise<unknown> {
  const invoker = localInvoker();
  if (!invoker) throw new Error(`No local invoker is registered to run ${name}`);
  // what crosses the boundary is JSON, as in AWS
  return JSON.parse(JSON.stringify((await invoker(name, JSON.parse(JSON.stringify(payload)))) ?? null));
}

async function invokeInAws(name: string, payload: unknown): Promise<unknown> {
  const variable = functionVariableOf(name);
  // a variable per callee, set by CDK on its callers only (not one of shared/config.ts's fixed settings)
  const functionName = process.env[variable];
  if (!functionName) throw new Error(`This function may not invoke ${name} (no ${variable})`);
  const { sdk, client } = await lambda();
  const out = await client.send(new sdk.InvokeCommand({ FunctionName: functionName, Payload: new TextEncoder().encode(JSON.stringify(payload)) }));
  // the callee's own log has its failure; its answer is not repeated here (it may echo what it was given)
  if (out.FunctionError) throw new Error(`${name} failed (${out.FunctionError})`);
  return JSON.parse(new TextDecoder().decode(out.Payload));
}

/** The domain error classes by name: an error comes back as an instance of its own class. */
const ERROR_CLASSES = new Map<string, { prototype: AppError }>(
  Object.values(domainErrors).flatMap((value) =>
    typeof value === 'function' && (value === AppError || value.prototype instanceof AppError)
      ? [[value.name, value as { prototype: AppError }]]
      : [],
  ),
);

function errorFrom(sent: SentError): AppError {
  const error = Object.create((ERROR_CLASSES.get(sent.name) ?? AppError).prototype) as AppError;
  Object.defineProperty(error, 'message', { value: sent.message, writable: true, configurable: true });
  Object.assign(error, sent.fields, { stack: `${sent.name}: ${sent.message}` });
  return error;
}

const sentError = (error: AppError): SentError => ({ name: error.name, message: error.message, fields: { ...error } });

/**
 * A private function's handler: the payload checked by `schema` at the boundary (a mismatch fails with the paths
 * only, never a value: a payload may hold a typed card), then `run`; a domain error is answered, anything else fails
 * the invocation (logged by `worker`, the caller answers 500). Nothing here logs the payload.
 */
export const invoked = <S extends v.GenericSchema, R>(schema: S, run: (input: v.InferOutput<S>) => Promise<R>) =>
  worker(async (event: unknown, _context: Context): Promise<Answer<R>> => {
    const parsed = v.safeParse(schema, event);
    if (!parsed.success) {
      throw new Error(`Invalid invocation payload at ${parsed.issues.map((issue) => v.getDotPath(issue) ?? '(root)').join(', ')}`);
    }
    try {
      return { ok: true, value: await run(parsed.output) };
    } catch (error) {
      if (error instanceof AppError) return { ok: false, error: sentError(error) };
      throw error;
    }
  });
