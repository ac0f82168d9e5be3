import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { BadRequest, NotFound } from '../domain/errors.ts';
import { type Entity, isId } from '../domain/ids.ts';
import { issueReason } from './issue-reason.ts';
import { stateOf } from './types.ts';

export type AnySchema = v.GenericSchema;

export interface ValidateOptions {
  body?: AnySchema;
  query?: AnySchema;
}

/**
 * Path ids: each parameter must be an id of its entity; a malformed id answers 404 like a missing one. Runs before
 * the body is read, so a wrong id is a 404 whatever the body holds.
 */
export const pathIds = (params: Record<string, Entity>): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const state = stateOf(request);
    for (const [name, entity] of Object.entries(params)) {
      const value = request.event.pathParameters?.[name];
      if (!isId(entity, value)) throw new NotFound();
      state.params[name] = value;
    }
  },
});

/** Validates body and query with valibot; the first issue names the offending field in `param` and the message says why. */
export const validate = (options: ValidateOptions): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const state = stateOf(request);
    if (options.query) state.query = parse(options.query, request.event.queryStringParameters ?? {});
    if (options.body) state.body = parse(options.body, state.body);
  },
});

function parse(schema: AnySchema, input: unknown): unknown {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const param = v.getDotPath(issue) ?? undefined;
  const missing = issue.received === 'undefined';
  throw new BadRequest(missing ? 'parameter_missing' : 'parameter_invalid', param, issueReason(schema, issue, param));
}
