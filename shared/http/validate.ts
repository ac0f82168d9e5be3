import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { BadRequest, NotFound } from '../domain/errors.ts';
import { type Entity, isId } from '../domain/ids.ts';
import { stateOf } from './types.ts';

export type AnySchema = v.GenericSchema;

export interface ValidateOptions {
  body?: AnySchema;
  query?: AnySchema;
  /** Path parameters and the entity whose id each must be; a malformed id answers 404 like a missing one. */
  params?: Record<string, Entity>;
}

/** Validates body, query and path with valibot; the first issue names the offending field in `param`. */
export const validate = (options: ValidateOptions): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const state = stateOf(request);
    const event = request.event;
    for (const [name, entity] of Object.entries(options.params ?? {})) {
      const value = event.pathParameters?.[name];
      if (!isId(entity, value)) throw new NotFound();
      state.params[name] = value;
    }
    if (options.query) state.query = parse(options.query, event.queryStringParameters ?? {});
    if (options.body) state.body = parse(options.body, state.body);
  },
});

function parse(schema: AnySchema, input: unknown): unknown {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const param = v.getDotPath(issue) ?? undefined;
  const missing = issue.received === 'undefined';
  throw new BadRequest(missing ? 'parameter_missing' : 'parameter_invalid', param);
}
